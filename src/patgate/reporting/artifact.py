"""A report written to a file: checked up front, written whole at the end of the run.

The JSON, JUnit and HTML reporters share this. The path is checked (and its folder made)
when the reporter is built, so a bad ``--report`` fails before the run instead of after it.
The file appears only when the run finishes, and atomically: the document goes to a
temporary file in the same folder, then ``os.replace`` puts it in place, so a crash or a
full disk never leaves half a report where the old one was.
"""

from __future__ import annotations

import abc
import os
import tempfile
from pathlib import Path

from patgate.errors import UsageError
from patgate.runner.results.events import Event, RunFinished, RunStarted, Targets

__all__ = ["ArtifactReporter", "TargetRun", "prepare_path", "worst_exit_code", "write_atomically"]

TargetRun = tuple[str, RunStarted | None, RunFinished]
"""One target of a run of several: its label (the ``--world`` file), start and end."""

_SEVERITY = (0, 4, 1, 3, 2)
"""Exit codes from least to most severe; a signal's (130, 143) is worse than all."""


def worst_exit_code(codes: list[int]) -> int:
    """The exit code of a run of several targets: the worst of theirs (a signal's, then 2,
    3 unreachable, 1 a failure, 4 a requirement not met, 0)."""

    def rank(code: int) -> int:
        return _SEVERITY.index(code) if code in _SEVERITY else len(_SEVERITY)

    return max(codes, key=rank, default=0)


_DEFAULT_MODE = 0o644


def prepare_path(raw: str, *, kind: str) -> Path:
    """The report path ``raw`` made absolute, with its folder created.

    Raises ``UsageError`` naming the problem when the path is empty, is a folder, or its
    folder cannot be created or written to.
    """
    if not raw.strip():
        raise UsageError(f"report {kind!r} needs a file path: use {kind}:PATH")
    path = Path(raw).expanduser().absolute()
    if path.is_dir():
        raise UsageError(f"report {kind}:{raw}: {path} is a folder; give a file path")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or str(error)
        raise UsageError(f"report {kind}:{raw}: cannot create folder {folder}: {reason}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"report {kind}:{raw}: folder {folder} is not writable")
    return path


def write_atomically(path: Path, data: bytes) -> None:
    """Put ``data`` at ``path`` whole or not at all; a file already there is replaced."""
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        mode = _DEFAULT_MODE
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp makes the file private; a report is meant to be read like any other file.
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class ArtifactReporter(abc.ABC):
    """Collects the run's start and end, and writes one file when the run finishes.

    Subclasses provide :meth:`render`. Scenario events are not needed: ``RunFinished``
    carries every scenario's result.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._started: RunStarted | None = None
        self._written = False
        self._labels: tuple[str, ...] = ()
        self._runs: list[TargetRun] = []

    def handle(self, event: Event) -> None:
        """Remember the run's start; write the report when the run finishes.

        Raises ``UsageError`` naming the file when it cannot be written.
        """
        if isinstance(event, Targets):
            self._labels = event.labels
        elif isinstance(event, RunStarted):
            self._started = event
        elif isinstance(event, RunFinished) and self._labels:
            # Several targets: the file is written again after each, with all so far.
            index = len(self._runs)
            label = self._labels[index] if index < len(self._labels) else ""
            self._runs.append((label, self._started, event))
            self._write(self.render_targets(self._runs))
        elif isinstance(event, RunFinished) and not self._written:
            self._write(self.render(self._started, event))

    def _write(self, data: bytes) -> None:
        try:
            write_atomically(self.path, data)
        except OSError as error:
            # The folder was fine at the start; a full disk or a changed permission
            # still deserves a message that names the file, not a traceback.
            reason = error.strerror or str(error)
            raise UsageError(f"cannot write report {self.path}: {reason}") from error
        self._written = True

    def close(self) -> None:
        """Forget the run. The file was written whole at ``RunFinished``, or not at all."""
        self._started = None

    @abc.abstractmethod
    def render(self, started: RunStarted | None, finished: RunFinished) -> bytes:
        """The whole report as bytes."""

    @abc.abstractmethod
    def render_targets(self, runs: list[TargetRun]) -> bytes:
        """The whole report of a run of several targets, in the order given."""
