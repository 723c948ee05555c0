"""Limits on what a scenario file or a target file may hold, checked before it is built.

A YAML alias may repeat a whole subtree (a 579-byte file of nested aliases expands to
gigabytes), and deep nesting overflows the recursive builders (a ``RecursionError`` at a
thousand levels, a crash of the C loader at fifty thousand). So the text is first read as a
flat stream of parser events, which keeps no stack: the size of the file, the nesting depth
and the number of values once every alias is expanded are counted there, and the first
limit passed is reported with its line. Only then is the document built.
"""

from __future__ import annotations

from typing import Any

from patgate.errors import PatgateError

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_VALUES",
    "LimitExceeded",
    "check_json_text",
    "check_size",
    "check_yaml_text",
    "foreign_refs",
]

MAX_FILE_BYTES = 1024 * 1024
"""The largest scenario or target file read (1 MiB)."""
MAX_DEPTH = 64
"""The deepest nesting of mappings and lists."""
MAX_VALUES = 100_000
"""The most values a file may hold once every alias is expanded."""


class LimitExceeded(PatgateError, ValueError):
    """A file passes one of the limits; ``line`` (1-based) is where."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def check_size(size: int) -> None:
    """Refuse a file of ``size`` bytes over :data:`MAX_FILE_BYTES`."""
    if size > MAX_FILE_BYTES:
        raise LimitExceeded(f"the file is {size} bytes; the limit is {MAX_FILE_BYTES}", 1)


def check_yaml_text(text: str) -> None:
    """Refuse YAML ``text`` that is too large, too deep, or expands beyond
    :data:`MAX_VALUES` through aliases. A syntax error is left to the loader."""
    import yaml

    check_size(len(text.encode("utf-8", "surrogatepass")))
    depth = 0
    total = 0
    sizes: dict[str, int] = {}
    open_anchors: list[tuple[str | None, int]] = []
    parser_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    parser = parser_class(text)
    try:
        while True:
            try:
                event = parser.get_event()
            except yaml.MarkedYAMLError as error:
                # libyaml 0.2.5 refuses deep nesting itself, reading ahead of the events.
                if "nesting depth" in str(error.problem):
                    mark = error.problem_mark
                    where = mark.line + 1 if mark is not None else None
                    raise LimitExceeded(f"nesting deeper than {MAX_DEPTH} levels", where) from None
                return  # the loader reports it, with its line
            except yaml.YAMLError:
                return
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return
            line = event.start_mark.line + 1 if event.start_mark is not None else None
            if isinstance(event, yaml.AliasEvent):
                total += sizes.get(str(event.anchor), 1)
            elif isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)):
                total += 1
                if isinstance(event, yaml.ScalarEvent):
                    if event.anchor is not None:
                        sizes[event.anchor] = 1
                else:
                    depth += 1
                    if depth > MAX_DEPTH:
                        raise LimitExceeded(f"nesting deeper than {MAX_DEPTH} levels", line)
                    open_anchors.append((event.anchor, total))
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
                anchor, started = open_anchors.pop()
                if anchor is not None:
                    sizes[anchor] = total - started + 1
            if total > MAX_VALUES:
                raise LimitExceeded(
                    f"more than {MAX_VALUES} values once aliases are expanded", line
                )
    finally:
        parser.dispose()


def check_json_text(text: str) -> None:
    """Refuse JSON ``text`` that is too large or nested deeper than :data:`MAX_DEPTH`."""
    check_size(len(text.encode("utf-8", "surrogatepass")))
    depth, line, in_string, escaped = 0, 1, False, False
    for char in text:
        if char == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise LimitExceeded(f"nesting deeper than {MAX_DEPTH} levels", line)
        elif char in "]}":
            depth -= 1


def foreign_refs(schema: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """Where an inline JSON Schema holds a ``$ref`` (or ``$dynamicRef``) that leaves the
    schema itself: ``(path, reference)`` for each; only ``#...`` pointers stay inside."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), schema)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("$ref", "$dynamicRef") and not (
                    isinstance(item, str) and item.startswith("#")
                ):
                    found.append(((*where, key), str(item)))
                else:
                    stack.append(((*where, str(key)), item))
        elif isinstance(value, list):
            stack.extend(((*where, index), item) for index, item in enumerate(value))
    return sorted(found, key=lambda pair: [str(part) for part in pair[0]])
