"""Where a report's scenario comes from, as a page that travels shows it.

A scenario of the user's is a file of their checkout: a report links to it, relative to the
report. A built-in scenario is a file inside the installed package (a virtualenv's
``site-packages``, say), which a downloaded report cannot reach: it is named
``patgate/scenarios/NAME.yaml`` and its text is carried along instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["MAX_TEXT", "ScenarioFile", "scenario_file"]

MAX_TEXT = 64 * 1024
"""The most characters of a built-in scenario's text a report carries."""


@dataclass(frozen=True)
class ScenarioFile:
    """One scenario's file, as a report shows it."""

    shown: str
    """``patgate/scenarios/NAME.yaml`` (built in), or the path as the source gave it."""
    path: Path
    """The file on this machine (never shown for a built-in scenario)."""
    line: int
    """The line the scenario starts at (0: not known)."""
    builtin: bool

    def text(self) -> str:
        """The built-in file's text (shortened past :data:`MAX_TEXT`), or ``""`` for a
        user's file or one that cannot be read."""
        if not self.builtin:
            return ""
        try:
            with self.path.open(encoding="utf-8", errors="replace") as stream:
                text = stream.read(MAX_TEXT + 1)
        except OSError:
            return ""
        return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "\n[... shortened]"


def scenario_file(source: str) -> ScenarioFile | None:
    """The file of a scenario's ``path:line`` source, or ``None`` when there is none."""
    from patgate.basics.resources import scenarios_dir

    if not source:
        return None
    path_text, _colon, line_text = source.rpartition(":")
    if not path_text or not line_text.isdigit():
        path_text, line_text = source, ""
    path = Path(path_text)
    line = int(line_text or 0)
    if path.is_absolute():
        try:
            inside = path.resolve().relative_to(scenarios_dir().resolve())
        except (ValueError, OSError):
            pass
        else:
            return ScenarioFile(f"patgate/scenarios/{inside.as_posix()}", path, line, True)
    return ScenarioFile(path_text, path, line, False)
