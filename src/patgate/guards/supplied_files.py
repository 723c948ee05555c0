"""One way to read a file a user or a pull request supplies: bounded, plain, and named.

Scenario files, the waivers file, the fake's profile, a world (target) file, a ``--faults``
file and ``patgate serve``'s state file and journal are all read here, so each gets the
same guards before anything is built from it:

- a size cap checked before the text is held: a regular file larger than the cap is refused
  from its size alone, anything else (``/dev/zero``, a pipe) is read for at most cap + 1
  bytes; a folder is refused by name, and a pipe with no writer reads as empty, never hangs;
- UTF-8 only, the line of the first byte that is not;
- YAML: plain YAML only. Aliases and anchors are refused (a 573-byte file of nested aliases
  expands to gigabytes), and so is every tag a safe loader does not build (``!!python/...``,
  local ``!tags``); nesting deeper than a bound is refused from the parser's event stream,
  which keeps no stack, before any document is built;
- JSON: the same nesting bound; a syntax error names its line.

Every refusal is a :class:`FileRefused` (a usage error: exit code 2) whose one-line message
starts with ``path:line:``. A foundation module: it imports only :mod:`patgate.errors`,
:mod:`patgate.guards.yaml_source` and PyYAML.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from patgate.errors import ScenarioError, UsageError
from patgate.guards.yaml_source import SourceDocument, read_documents

__all__ = [
    "MAX_DEPTH",
    "MAX_SUPPLIED_BYTES",
    "FileRefused",
    "check_yaml_text",
    "decode_supplied",
    "load_json",
    "load_yaml",
    "parse_json",
    "read_supplied",
    "read_yaml_text",
    "refuse_unless_regular",
]

MAX_SUPPLIED_BYTES = 4 * 1024 * 1024
"""The largest scenario, waivers, profile or world file read (4 MiB): the shipped scenario
files are under 3 KiB each and ``specs/rules.yaml``, the largest YAML file shipped, 34 KiB."""
MAX_DEPTH = 64
"""The deepest nesting of mappings and lists a supplied file may hold (a loader may ask
for less: the profile takes 16)."""

_PLAIN_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp")
)


class FileRefused(UsageError):
    """A supplied file the loading discipline refuses; ``path`` and ``line`` (1-based, or
    ``None`` for the file as a whole) say where."""

    def __init__(self, problem: str, *, path: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        super().__init__(f"{path}:{line}: {problem}" if line is not None else f"{path}: {problem}")


def _size_text(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit} bytes"


def read_supplied(
    path: Path | str,
    *,
    limit: int = MAX_SUPPLIED_BYTES,
    regular_only: bool = False,
    follow_symlinks: bool = True,
) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them, or :class:`FileRefused`.

    ``regular_only`` refuses devices and pipes (a file patgate wrote itself, such as the
    served fake's state); ``follow_symlinks=False`` refuses a symbolic link.
    """
    name = str(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    try:
        # Non-blocking: opening a pipe nobody writes to must not hang the command.
        descriptor = os.open(name, flags)
    except OSError as error:
        raise FileRefused(f"cannot read: {error.strerror}", path=name) from None
    try:
        mode = os.fstat(descriptor)
        if stat.S_ISDIR(mode.st_mode):
            raise FileRefused("cannot read: it is a folder, not a file", path=name)
        regular = stat.S_ISREG(mode.st_mode)
        if regular_only and not regular:
            raise FileRefused("is not a regular file", path=name)
        if regular and mode.st_size > limit:
            raise FileRefused(f"is larger than {_size_text(limit)}", path=name)
        os.set_blocking(descriptor, True)  # a writer's data may still be on its way
    except BaseException:
        os.close(descriptor)
        raise
    with os.fdopen(descriptor, "rb", buffering=0) as handle:
        try:
            data = _read_at_most(handle, limit + 1)
        except OSError as error:
            raise FileRefused(f"cannot read: {error.strerror}", path=name) from None
    if len(data) > limit:
        raise FileRefused(f"is larger than {_size_text(limit)}", path=name)
    return data


def _read_at_most(handle: Any, most: int) -> bytes:
    """Up to ``most`` bytes of ``handle``, in chunks: one ``read(most)`` would set aside
    ``most`` bytes at once whatever the file holds."""
    chunks: list[bytes] = []
    left = most
    while left > 0:
        chunk = handle.read(min(left, 1024 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def refuse_unless_regular(path: Path | str) -> None:
    """Refuse ``path`` when it exists and is not a regular file (a folder, a device, a
    pipe, a symbolic link): for a file patgate writes beside, such as the served state."""
    name = str(path)
    try:
        mode = os.lstat(name).st_mode
    except FileNotFoundError:
        return
    except OSError as error:
        raise FileRefused(f"cannot read: {error.strerror}", path=name) from None
    if stat.S_ISDIR(mode):
        raise FileRefused("cannot read: it is a folder, not a file", path=name)
    if not stat.S_ISREG(mode):
        raise FileRefused("is not a regular file", path=name)


def _decoded(data: bytes, path: str, first_line: int = 1) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + first_line
        raise FileRefused(
            f"not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})",
            path=path,
            line=line,
        ) from None


def check_yaml_text(text: str, path: str, *, max_depth: int = MAX_DEPTH) -> None:
    """Refuse YAML ``text`` holding an alias, an anchor, a tag a safe loader does not build,
    or nesting deeper than ``max_depth``. A syntax error is left to the loader, which names
    its line."""
    import yaml

    parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    depth = 0
    try:
        while True:
            try:
                event = parser.get_event()
            except yaml.MarkedYAMLError as error:
                # libyaml refuses very deep nesting itself, reading ahead of the events.
                if "nesting depth" in str(error.problem):
                    mark = error.problem_mark
                    line = mark.line + 1 if mark is not None else None
                    raise FileRefused(
                        f"nested deeper than {max_depth} levels", path=path, line=line
                    ) from None
                return
            except yaml.YAMLError:
                return
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return
            _check_event(event, path, yaml)
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > max_depth:
                    raise FileRefused(
                        f"nested deeper than {max_depth} levels", path=path, line=_line(event)
                    )
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    finally:
        parser.dispose()


def _line(event: Any) -> int:
    return event.start_mark.line + 1 if event.start_mark is not None else 1


def _check_event(event: Any, path: str, yaml: Any) -> None:
    if isinstance(event, yaml.AliasEvent):
        raise FileRefused(
            f"YAML aliases (*{event.anchor}) are not accepted: write the value out",
            path=path,
            line=_line(event),
        )
    if not isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
        return
    if event.anchor is not None:
        raise FileRefused(
            f"YAML anchors (&{event.anchor}) are not accepted: write the value out",
            path=path,
            line=_line(event),
        )
    tag = event.tag
    if tag is not None and tag != "!" and tag not in _PLAIN_TAGS:
        shown = tag.replace("tag:yaml.org,2002:", "!!")
        raise FileRefused(
            f"the tag {shown[:80]} is not accepted: plain YAML only", path=path, line=_line(event)
        )


def read_yaml_text(
    path: Path | str, *, limit: int = MAX_SUPPLIED_BYTES, max_depth: int = MAX_DEPTH
) -> str:
    """The text of the YAML file at ``path``, read and checked under the discipline (size,
    UTF-8, no alias, anchor or foreign tag, nesting), not yet parsed."""
    name = str(path)
    text = _decoded(read_supplied(path, limit=limit), name)
    check_yaml_text(text, name, max_depth=max_depth)
    return text


def load_yaml(
    path: Path | str, *, limit: int = MAX_SUPPLIED_BYTES, max_depth: int = MAX_DEPTH
) -> list[SourceDocument]:
    """Every document of the YAML file at ``path``, with lines, read under the discipline."""
    name = str(path)
    text = read_yaml_text(path, limit=limit, max_depth=max_depth)
    try:
        return read_documents(text, name)
    except ScenarioError as error:
        problem = str(error).removeprefix(f"{name}:{error.line}: ").removeprefix(f"{name}: ")
        raise FileRefused(problem, path=name, line=error.line) from None


def _too_deep_line(text: str, max_depth: int) -> int | None:
    """The line where JSON ``text`` first nests deeper than ``max_depth``, if it does."""
    import re

    depth, line = 0, 1
    for match in re.finditer(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}\n]', text):
        token = match.group()
        if token == "\n":
            line += 1
        elif token in "[{":
            depth += 1
            if depth > max_depth:
                return line
        elif token in "]}":
            depth -= 1
    return None


def _depth_over(value: Any, max_depth: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > max_depth:
                return True
            stack.extend(
                (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return False


def parse_json(
    text: str,
    path: str,
    *,
    max_depth: int = MAX_DEPTH,
    parse_constant: Callable[[str], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
    first_line: int = 1,
) -> Any:
    """The JSON value in ``text`` (from ``path``, starting at ``first_line``), bounded in
    depth; :class:`FileRefused` names the line of a syntax error or of the nesting."""

    def too_deep() -> FileRefused:
        line = _too_deep_line(text, max_depth)
        return FileRefused(
            f"nested deeper than {max_depth} levels",
            path=path,
            line=first_line + (line or 1) - 1,
        )

    try:
        value = json.loads(text, parse_constant=parse_constant, parse_float=parse_float)
    except RecursionError:
        raise too_deep() from None
    except json.JSONDecodeError as error:
        raise FileRefused(
            f"not valid JSON: {error.msg}", path=path, line=first_line + error.lineno - 1
        ) from None
    except ValueError as error:  # a refused constant, an integer of 5,000 digits
        raise FileRefused(
            f"not valid JSON: {str(error)[:200]}", path=path, line=first_line
        ) from None
    if _depth_over(value, max_depth):
        raise too_deep()
    return value


def load_json(
    path: Path | str, *, limit: int = MAX_SUPPLIED_BYTES, max_depth: int = MAX_DEPTH
) -> Any:
    """The JSON value in the file at ``path``, read under the discipline."""
    name = str(path)
    return parse_json(_decoded(read_supplied(path, limit=limit), name), name, max_depth=max_depth)


def decode_supplied(data: bytes, path: Path | str, first_line: int = 1) -> str:
    """``data`` read from ``path`` (from its line ``first_line``) as UTF-8, or
    :class:`FileRefused` naming the line."""
    return _decoded(data, str(path), first_line)
