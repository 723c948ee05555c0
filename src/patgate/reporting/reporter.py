"""What a reporter is, and how a ``--report`` value becomes one."""

from __future__ import annotations

from typing import Protocol, TextIO, runtime_checkable

from patgate.errors import UsageError
from patgate.runner.results.events import Event

__all__ = ["REPORT_KINDS", "Reporter", "make_reporter"]

REPORT_KINDS = ("terminal", "json:PATH", "junit:PATH", "html:PATH")
"""The accepted forms of a report spec, as the CLI's help shows them."""


@runtime_checkable
class Reporter(Protocol):
    """Consumes the runner's events; never calls back into the runner."""

    def handle(self, event: Event) -> None:
        """Take one event, in the order the runner emitted it."""

    def close(self) -> None:
        """The run is over (finished or not): flush and release what the reporter holds."""


def make_reporter(spec: str, *, stream: TextIO) -> Reporter:
    """The reporter that ``spec`` names: ``terminal``, ``json:PATH``, ``junit:PATH``, ``html:PATH``.

    ``stream`` is where the terminal reporter writes. A file reporter's folder is created
    here, so a path that cannot work fails before the run. Raises ``UsageError`` naming the
    problem for an unknown kind, a missing path or a folder that cannot be created.
    """
    # Imported here so that importing patgate.reporting costs only what a run uses.
    from patgate.reporting.artifact import prepare_path

    kind, colon, path = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "terminal":
        if colon:
            raise UsageError(f"report {spec!r}: terminal takes no path; use plain 'terminal'")
        from patgate.reporting.terminal import TerminalReporter

        return TerminalReporter(stream)
    if kind == "json":
        from patgate.reporting.json_document import JsonReporter

        return JsonReporter(prepare_path(path, kind=kind))
    if kind == "junit":
        from patgate.reporting.junit import JunitReporter

        return JunitReporter(prepare_path(path, kind=kind))
    if kind == "html":
        from patgate.reporting.html_page import HtmlReporter

        return HtmlReporter(prepare_path(path, kind=kind))
    shown = kind or spec
    raise UsageError(
        f"unknown report kind {shown!r} in {spec!r}; use one of {', '.join(REPORT_KINDS)}"
    )
