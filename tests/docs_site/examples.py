"""Find and run the examples that README.md and the pages under ``docs/`` show.

An example is a fenced block:

- ``python``: run with the project's Python in a temporary folder (with ``def test_`` in it,
  under pytest, so the plugin's fixtures are there);
- ``sh`` or ``shell`` holding a ``patgate`` command, or ``console`` (its ``$ `` lines): run
  with bash, ``patgate`` and ``.venv/bin/patgate`` being the project's, in the same folder.

The examples of one page share that folder and run in order. An HTML comment right before a
block (blank lines between are allowed) changes how it runs::

    <!-- example: skip the reason -->      not run (the reason is required)
    <!-- example: needs fuzz -->           run only when the fuzz extra is installed
    <!-- example: exit 1 -->              expected exit code (default 0)
    <!-- example: continue -->            Python: runs after the page's previous Python block
    <!-- example: serves -->              passes once it prints "listening on"; then stopped
    <!-- example: file w.json -->         any block: its text is written to that file

Several words may share one comment (``<!-- example: needs fuzz; exit 1 -->``). Everything
stays on loopback and is bounded in time: a block that names a URL of another host, or that
installs packages, is refused (mark it ``skip``), and each block is stopped after
:data:`TIMEOUT` seconds.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 90.0
"""Seconds a block may take."""

SERVE_WAIT = 30.0
"""Seconds a ``serves`` block has to say it listens."""

PYTHON = ("python", "py")
SHELL = ("sh", "shell", "bash", "console")
_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)[ \t]*(?P<lang>[\w+-]*)[^\n]*\n"
    r"(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
_DIRECTIVE = re.compile(r"<!--\s*example:\s*((?:(?!-->).)*?)\s*-->\s*\Z", re.DOTALL)
_URL = re.compile(r"\bhttps?://(\[[^\]]+\]|[^/\s:\"'`)]+)", re.IGNORECASE)
LOOPBACK = frozenset({"127.0.0.1", "localhost", "[::1]", "0.0.0.0"})  # noqa: S104
_INSTALLS = re.compile(r"\b(?:pip|uv|npm|apt-get|apt)\b[^\n]*\binstall\b")
# patgate in a command's place: a line's start, or after ; & | ( or $(.
_PATGATE = re.compile(r"(?:^|[;&|(])[ \t]*(?:\.venv/bin/)?patgate\b", re.MULTILINE)


@dataclass
class Example:
    """One fenced block of a page and how it is to run."""

    page: str
    line: int
    language: str
    code: str
    skip: str = ""
    needs: list[str] = field(default_factory=list)
    exit_code: int = 0
    continues: bool = False
    serves: bool = False
    file: str = ""

    @property
    def where(self) -> str:
        """``page:line`` of the block's opening fence."""
        return f"{self.page}:{self.line}"

    @property
    def runs(self) -> bool:
        """Whether the block is an example that runs (or a file it writes)."""
        if self.file:
            return True
        if self.language in PYTHON:
            return True
        if self.language == "console":
            return any(line.startswith("$ ") for line in self.code.splitlines())
        return self.language in SHELL and bool(_PATGATE.search(self.code))


class DirectiveError(ValueError):
    """An ``<!-- example: ... -->`` comment that cannot be read."""


def _apply(example: Example, directive: str) -> None:
    for part in filter(None, (p.strip() for p in directive.split(";"))):
        word, _, rest = part.partition(" ")
        rest = rest.strip()
        if word == "skip" and rest:
            example.skip = rest
        elif word == "needs" and rest:
            example.needs += rest.replace(",", " ").split()
        elif word == "exit" and rest.isdigit():
            example.exit_code = int(rest)
        elif word == "continue" and not rest:
            example.continues = True
        elif word == "serves" and not rest:
            example.serves = True
        elif word == "file" and rest and ".." not in Path(rest).parts:
            example.file = rest
        else:
            raise DirectiveError(f"{example.where}: cannot read <!-- example: {part} -->")


def examples(path: Path, name: str = "") -> list[Example]:
    """The fenced blocks of the Markdown file ``path``, with their directives."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        indent = match.group("indent")
        body = "".join(
            row[len(indent) :] if row.startswith(indent) else row
            for row in match.group("body").splitlines(keepends=True)
        )
        example = Example(name or str(path), line, match.group("lang").lower(), body)
        directive = _DIRECTIVE.search(text[: match.start()].rstrip())
        if directive is not None:
            _apply(example, directive.group(1))
        found.append(example)
    return found


def refusal(example: Example) -> str:
    """Why ``example`` may not run as written, or ``""``."""
    for host in _URL.findall(example.code):
        if host.lower() not in LOOPBACK:
            return f"names {host}, not a loopback host: mark it <!-- example: skip ... -->"
    if example.language in SHELL and _INSTALLS.search(example.code):
        return "installs packages: mark it <!-- example: skip ... -->"
    return ""


def missing_extras(example: Example) -> list[str]:
    """The extras ``example`` needs that are not installed here (an unknown one raises)."""
    import importlib.metadata

    from packaging.requirements import Requirement

    declared = importlib.metadata.metadata("patgate").get_all("Provides-Extra") or []
    missing = []
    for extra in example.needs:
        if extra not in declared:
            raise DirectiveError(f"{example.where}: patgate has no extra {extra!r}")
        for text in importlib.metadata.requires("patgate") or []:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is None or not marker.evaluate({"extra": extra}):
                continue  # not this extra's, or not on this Python
            try:
                version = importlib.metadata.version(requirement.name)
            except importlib.metadata.PackageNotFoundError:
                missing.append(extra)
                break
            if not requirement.specifier.contains(version, prereleases=True):
                missing.append(extra)
                break
    return missing


@dataclass(frozen=True)
class Outcome:
    """How one example ran."""

    example: Example
    status: str
    """``passed``, ``failed`` or ``skipped``."""
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.example.where} ({self.example.language}): {self.status} {self.detail}"


def _environment(folder: Path) -> dict[str, str]:
    """The examples' environment: the project's scripts first, no inherited patgate
    settings, and proxies that lead nowhere for anything not on loopback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PATGATE_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        env[name] = "http://127.0.0.1:9"
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1"
    env["HOME"] = str(folder)
    return env


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the example's process group (it may have put servers in the background)."""
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sent)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=5)
            if sent is signal.SIGTERM:
                time.sleep(0.2)  # let the group's other members finish their cleanup
        except subprocess.TimeoutExpired:
            continue


def _command(example: Example, folder: Path, number: int, previous: str) -> list[str]:
    if example.language in PYTHON:
        code = (previous + "\n" if example.continues else "") + example.code
        script = folder / f"example_{number}.py"
        if "def test_" in code:
            script = folder / f"test_example_{number}.py"
            script.write_text(code, encoding="utf-8")
            return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", script.name]
        script.write_text(code, encoding="utf-8")
        return [sys.executable, script.name]
    code = example.code
    if example.language == "console":
        code = "\n".join(line[2:] for line in code.splitlines() if line.startswith("$ "))
    return ["bash", "-e", "-o", "pipefail", "-c", code]


def run_example(example: Example, folder: Path, number: int, previous: str = "") -> Outcome:
    """Run ``example`` in ``folder``; ``previous`` is the page's last Python block."""
    if example.file:
        (folder / example.file).parent.mkdir(parents=True, exist_ok=True)
        (folder / example.file).write_text(example.code, encoding="utf-8")
    if example.skip:
        return Outcome(example, "skipped", example.skip)
    if example.file and not (example.language in PYTHON or example.language in SHELL):
        return Outcome(example, "passed", f"wrote {example.file}")
    why = refusal(example)
    if why:
        return Outcome(example, "failed", why)
    missing = missing_extras(example)
    if missing:
        return Outcome(example, "skipped", f"needs the {', '.join(missing)} extra")
    log = folder / f".example_{number}.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            _command(example, folder, number, previous),
            cwd=folder,
            env=_environment(folder),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            code = _wait(example, process, log)
        finally:
            _stop(process)
    text = log.read_text(encoding="utf-8", errors="replace")
    if code == example.exit_code:
        return Outcome(example, "passed")
    said = "timed out" if code is None else f"exited {code}, expected {example.exit_code}"
    return Outcome(example, "failed", f"{said}:\n{text[-2000:]}")


def _wait(example: Example, process: subprocess.Popen[bytes], log: Path) -> int | None:
    """The exit code (a ``serves`` block: 0 once it listens), or ``None`` on time out."""
    deadline = time.monotonic() + (SERVE_WAIT if example.serves else TIMEOUT)
    while time.monotonic() < deadline:
        if example.serves and "listening on" in log.read_text(errors="replace"):
            return 0
        code = process.poll()
        if code is not None:
            return code
        time.sleep(0.1)
    return None


def run_page(path: Path, folder: Path, name: str = "") -> list[Outcome]:
    """Run every example of the page at ``path`` in order, in ``folder``."""
    outcomes = []
    previous = ""
    for number, example in enumerate(examples(path, name)):
        if not example.runs:
            continue
        outcomes.append(run_example(example, folder, number, previous))
        if example.language in PYTHON:
            previous = example.code
    return outcomes


def pages() -> list[Path]:
    """README.md and every Markdown page under ``docs/``."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
