"""Turning SIGINT and SIGTERM into an exception, so a run's cleanup still happens.

pytest and Python handle only SIGINT on their own (as ``KeyboardInterrupt``); CI cancels a
job with SIGTERM, which would end the process at once and leave every token the run had
created behind. While a :class:`SignalGuard` is active, the first of its signals raises
:class:`RunInterrupted` (a ``KeyboardInterrupt``) in the main thread, where ``finally``
blocks and the run's ledger sweep can act on it. Later signals are noted and ignored, so
the cleanup is not cut short; a SIGKILL still ends the process, and ``patgate cleanup``
then finishes from the ledger.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Sequence
from types import FrameType, TracebackType
from typing import Any

__all__ = ["RunInterrupted", "SignalGuard", "interrupt_exit_code", "interrupt_name"]


class RunInterrupted(KeyboardInterrupt):
    """A signal asked the run to stop; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


def interrupt_name(interrupt: BaseException) -> str:
    """``SIGTERM`` for a :class:`RunInterrupted` by SIGTERM, ``SIGINT`` for any other."""
    if isinstance(interrupt, RunInterrupted):
        return signal.Signals(interrupt.signum).name
    return "SIGINT"


def interrupt_exit_code(name: str) -> int:
    """The conventional exit code of a process stopped by the signal ``name``: 128 + number
    (130 for SIGINT, 143 for SIGTERM)."""
    try:
        return 128 + int(signal.Signals[name])
    except KeyError:
        return 130


Handler = Callable[[int, FrameType | None], Any] | int | None


class SignalGuard:
    """A context manager: while inside, the first SIGINT or SIGTERM raises
    :class:`RunInterrupted` and later ones are ignored; on exit the previous handlers
    return. Outside the main thread (signals cannot be caught there) it does nothing.

    ``notice`` is called with a line of text when a signal is ignored.
    """

    def __init__(
        self,
        signals: Sequence[int] = (signal.SIGINT, signal.SIGTERM),
        *,
        notice: Callable[[str], None] | None = None,
    ) -> None:
        self.signals = tuple(signals)
        self.received: list[int] = []
        self._notice = notice if notice is not None else _to_stderr
        self._previous: dict[int, Handler] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        del frame
        self.received.append(signum)
        if len(self.received) == 1:
            raise RunInterrupted(signum)
        self._notice(
            f"patgate: {signal.Signals(signum).name} received; still cleaning up what this "
            "run created (SIGKILL stops it now; `patgate cleanup` finishes the job)"
        )

    def install(self) -> SignalGuard:
        """Start handling the signals (as entering the context does)."""
        if threading.current_thread() is threading.main_thread() and not self._previous:
            for signum in self.signals:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def restore(self) -> None:
        """Put the previous handlers back (as leaving the context does)."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        self._previous.clear()

    def __enter__(self) -> SignalGuard:
        return self.install()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.restore()


def _to_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
