"""The pieces of the HTML report every part of the page is built from.

:func:`html` is the one place a literal template becomes :class:`~markupsafe.Markup`: its
``{}`` fields are escaped unless they are ``Markup`` already, and text is passed through
:func:`~patgate.reporting.text.printable` first, so what a deployment answered is displayed,
never interpreted. Badges name outcomes with the words of
:data:`~patgate.runner.results.events.OUTCOME_WORDS` and levels with
:class:`~patgate.basics.levels.Level`; links point at scenarios and their files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from markupsafe import Markup

from patgate.basics.levels import Level
from patgate.reporting.scenario_files import scenario_file
from patgate.reporting.text import printable
from patgate.runner.results.events import OUTCOME_WORDS, Failure, Outcome, ScenarioFinished

__all__ = [
    "LABELS",
    "html",
    "join",
    "level_badge",
    "outcome_badge",
    "printable_value",
    "scenario_link",
    "source_cell",
    "source_link",
]

LABELS = {outcome: words.word.capitalize() for outcome, words in OUTCOME_WORDS.items()}
"""Each outcome's word, as a badge shows it."""


def html(template: str, /, *values: object, **named: object) -> Markup:
    """``template`` (literal HTML) with its ``{}`` fields filled in, each escaped unless it is
    ``Markup`` already; text is passed through :func:`printable` first."""
    # The one place a template becomes Markup: callers pass literal HTML, never a value.
    shown = [printable_value(value) for value in values]
    named_shown = {key: printable_value(value) for key, value in named.items()}
    return Markup(template).format(*shown, **named_shown)  # noqa: S704


def printable_value(value: object) -> object:
    """Text shown printable (control characters as escapes); anything else as it is."""
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return printable(value)


def join(pieces: Iterable[Markup], separator: str = "") -> Markup:
    """Pieces of HTML one after the other (``separator`` is text, escaped)."""
    return html("{}", separator).join(pieces)


def level_badge(level: Level) -> Markup:
    """A rule's level, named by the :class:`Level` enum."""
    return html('<span class="level {0}">{0}</span>', level.value)


def outcome_badge(outcome: Outcome) -> Markup:
    """An outcome, in its word."""
    return html('<span class="badge {}">{}</span>', outcome.value, LABELS[outcome])


def scenario_link(scenario_id: str, anchors: dict[str, str]) -> Markup:
    """A scenario's id, linked to its row when the page has one."""
    anchor = anchors.get(scenario_id)
    if anchor is None:
        return html('<span class="mono">{}</span>', scenario_id)
    return html('<a class="mono" href="#{}">{}</a>', anchor, scenario_id)


def source_link(scenario: ScenarioFinished, failure: Failure | None, folder: Path) -> Markup:
    """``scenarios/x.yaml:14`` linked to the file, relative to the report's folder; a
    built-in scenario named ``patgate/scenarios/x.yaml:14``, not linked."""
    file = scenario_file(scenario.source)
    if file is None:
        return Markup()
    line = failure.line if failure is not None and failure.line else file.line
    if file.builtin:
        shown = f"{file.shown}:{line}" if line else file.shown
        return html('<span class="mono source">{}</span>', shown)
    try:
        relative = os.path.relpath(file.path.absolute(), folder)
    except ValueError:  # another drive on Windows
        relative = file.shown
    href = Path(relative).as_posix()
    shown = f"{href}:{line}" if line else href
    return html('<a class="mono source" href="{}">{}</a>', href, shown)


def source_cell(scenario: ScenarioFinished, folder: Path) -> Markup:
    """The scenario table's source: a user's file linked; a built-in one named, with its
    text folded beneath."""
    file = scenario_file(scenario.source)
    text = file.text() if file is not None else ""
    if not text:
        return source_link(scenario, None, folder)
    return html(
        '<details class="scenario-text"><summary>{}</summary><pre>{}</pre></details>',
        source_link(scenario, None, folder),
        text,
    )
