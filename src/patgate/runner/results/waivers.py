"""Waivers: known failures of gate rules a team accepts until a date (``--waivers FILE``).

The file is YAML with a top-level ``waivers:`` list; each entry names a gate ``rule``, the
``reason`` it is accepted and the last day it applies (``expires``, an ISO date), and
optionally one ``target``. It is checked against ``specs/waivers.schema.json``, then for
what a schema cannot say (the rule exists and is a gate rule, the date is a real date); a
mistake is a usage error naming the file and line. Any pull request can edit the file, so
it is read under the discipline of :mod:`patgate.guards.supplied_files` (a size cap, no YAML
aliases or foreign tags, UTF-8 only).

:func:`apply_waivers` turns each failing gate rule a waiver covers into ``waived``; a waiver
past its date no longer applies (the rule stays failed, the report says it expired), and a
waiver of a rule that did not fail is reported as stale.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patgate.basics.levels import Level
from patgate.basics.resources import specs_dir
from patgate.errors import UsageError
from patgate.runner.results.events import Outcome, RuleResult, ScenarioFinished, WaiverNote
from patgate.runner.results.outcomes import scenario_outcome
from patgate.scenario.catalogue import Catalogue

if TYPE_CHECKING:
    from patgate.guards.yaml_source import SourceDocument

__all__ = [
    "Waiver",
    "active_rules",
    "apply_waivers",
    "load_waivers",
    "matches_target",
    "waive_scenario",
]


@dataclass(frozen=True)
class Waiver:
    """One entry of a waiver file."""

    rule: str
    reason: str
    expires: datetime.date
    """The last day the waiver applies."""
    target: str = ""
    """Only this target (a world file as given, its name or stem, or a base URL); ``""``:
    every target."""
    source: str = ""
    """``path:line`` of the entry."""

    def expired(self, today: datetime.date) -> bool:
        """Whether the waiver no longer applies on ``today``."""
        return today > self.expires

    def note(self, state: str) -> WaiverNote:
        """What a report says about this waiver."""
        return WaiverNote(
            self.rule, self.reason, self.expires.isoformat(), state, self.source, self.target
        )


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads((specs_dir() / "waivers.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def load_waivers(path: Path, catalogue: Catalogue) -> tuple[Waiver, ...]:
    """The waivers of the file at ``path``; a :class:`UsageError` naming file and line for
    anything wrong (not YAML, a missing reason or expiry, an unknown or advisory rule)."""
    doc = _read_waiver_file(path)
    _check_schema(path, doc)
    return tuple(
        _waiver(path, doc, index, entry, catalogue)
        for index, entry in enumerate(doc.data["waivers"])
    )


def _read_waiver_file(path: Path) -> SourceDocument:
    """The file's one YAML document, a mapping, its dates as ISO text."""
    from patgate.guards.supplied_files import FileRefused, read_yaml_text
    from patgate.scenario.source import read_documents

    try:
        text = read_yaml_text(path)
    except FileRefused as error:
        raise UsageError(f"--waivers: {error}") from None
    try:
        documents = read_documents(text, str(path))
    except UsageError as error:
        raise UsageError(f"--waivers: {error}") from None
    except ValueError as error:
        # YAML reads 2026-02-30 as a date and the calendar refuses it.
        line = _bad_date_line(text)
        raise UsageError(f"--waivers: {path}:{line}: expires is not a real date: {error}") from None
    if len(documents) != 1 or not isinstance(documents[0].data, dict):
        raise UsageError(f"--waivers: {path}:1: a waiver file is a mapping with a 'waivers:' list")
    doc = documents[0]
    # YAML reads an unquoted 2026-12-31 as a date; the schema checks the text of it.
    for entry in doc.data.get("waivers") or () if isinstance(doc.data.get("waivers"), list) else ():
        if isinstance(entry, dict) and isinstance(entry.get("expires"), datetime.date):
            entry["expires"] = entry["expires"].isoformat()
    return doc


def _fail(path: Path, doc: SourceDocument, message: str, where: Sequence[str | int]) -> UsageError:
    return UsageError(f"--waivers: {path}:{doc.line_of(where)}: {message}")


def _check_schema(path: Path, doc: SourceDocument) -> None:
    """Refuse the first problem specs/waivers.schema.json finds, the deepest first."""
    errors = sorted(_validator().iter_errors(doc.data), key=lambda e: -len(e.absolute_path))
    if not errors:
        return
    problem = errors[0]
    at: list[str | int] = list(problem.absolute_path)
    if problem.validator == "required":
        missing = [key for key in problem.validator_value if key not in problem.instance]
        message = f"missing {missing[0]!r}" if missing else problem.message
    elif problem.validator == "additionalProperties":
        message = f"unknown key: {problem.message}"
    elif at and at[-1] == "expires":
        message = f"expires: {problem.instance!r} is not an ISO date (YYYY-MM-DD)"
    else:
        message = problem.message
    raise _fail(path, doc, f"{_entry_rule(doc.data, at)}{message}", at)


def _waiver(
    path: Path, doc: SourceDocument, index: int, entry: dict[str, Any], catalogue: Catalogue
) -> Waiver:
    """One entry, of a gate rule the catalogue knows, with a real date."""
    rule = entry["rule"]
    where: list[str | int] = ["waivers", index]
    if rule not in catalogue:
        raise _fail(path, doc, f"unknown rule {rule!r} (see `patgate rules`)", [*where, "rule"])
    if catalogue[rule].level is not Level.GATE:
        raise _fail(
            path, doc, f"{rule} is advisory; only gate rules can be waived", [*where, "rule"]
        )
    try:
        expires = datetime.date.fromisoformat(entry["expires"])
    except ValueError:
        raise _fail(
            path,
            doc,
            f"waiver of {rule}: expires: {entry['expires']!r} is not a date",
            [*where, "expires"],
        ) from None
    return Waiver(
        rule,
        entry["reason"].strip(),
        expires,
        entry.get("target", ""),
        f"{path}:{doc.line_of(where)}",
    )


def _bad_date_line(text: str) -> int:
    """The line of the first ``expires:`` that is not a real date (1 if none is found)."""
    import re

    for number, line in enumerate(text.splitlines(), start=1):
        found = re.match(r"^[\s-]*expires:\s*['\"]?([0-9-]+)", line)
        if found:
            try:
                datetime.date.fromisoformat(found[1])
            except ValueError:
                return number
    return 1


def _entry_rule(data: Any, where: Sequence[str | int]) -> str:
    """``waiver of PAT-CAP: `` when the error is inside an entry that names its rule."""
    if len(where) >= 2 and where[0] == "waivers" and isinstance(where[1], int):
        entries = data.get("waivers")
        if isinstance(entries, list) and where[1] < len(entries):
            entry = entries[where[1]]
            if isinstance(entry, dict) and isinstance(entry.get("rule"), str):
                return f"waiver of {entry['rule']}: "
    return ""


def matches_target(waiver: Waiver, label: str, display: str) -> bool:
    """Whether ``waiver`` is for the target given as ``label`` (a world file's path, or
    ``""``) and shown as ``display`` (its base URL)."""
    if not waiver.target:
        return True
    wanted = waiver.target.rstrip("/")
    names = {display.rstrip("/")}
    if label:
        world = Path(label)
        names |= {label, world.name, world.stem}
    return wanted in names


def apply_waivers(
    waivers: Sequence[Waiver],
    rules: Sequence[RuleResult],
    scenarios: Sequence[ScenarioFinished],
    *,
    label: str,
    display: str,
    today: datetime.date | None = None,
) -> tuple[tuple[RuleResult, ...], tuple[ScenarioFinished, ...], tuple[WaiverNote, ...]]:
    """The rules and scenarios with every failing gate rule a live waiver covers made
    ``waived``, and a note per waiver of this target: applied, expired or stale."""
    today = today if today is not None else datetime.date.today()
    mine = [w for w in waivers if matches_target(w, label, display)]
    by_rule = {rule.rule_id: rule for rule in rules}
    notes: list[WaiverNote] = []
    waived: dict[str, Waiver] = {}
    expired: dict[str, Waiver] = {}
    for waiver in mine:
        result = by_rule.get(waiver.rule)
        if waiver.expired(today):
            notes.append(waiver.note("expired"))
            if result is not None and result.outcome is Outcome.FAILED:
                expired.setdefault(waiver.rule, waiver)
            continue
        if result is not None and result.outcome is Outcome.FAILED:
            if waiver.rule not in waived:
                waived[waiver.rule] = waiver
                notes.append(waiver.note("applied"))
            continue
        notes.append(waiver.note("stale"))
    new_rules = []
    for rule in rules:
        if rule.rule_id in waived:
            w = waived[rule.rule_id]
            rule = dataclasses.replace(
                rule,
                outcome=Outcome.WAIVED,
                reason=f"waived until {w.expires.isoformat()}: {w.reason} ({w.source})",
            )
        elif rule.rule_id in expired:
            w = expired[rule.rule_id]
            rule = dataclasses.replace(
                rule,
                reason=f"its waiver expired on {w.expires.isoformat()} ({w.source})",
            )
        new_rules.append(rule)
    new_scenarios = [waive_scenario(scenario, frozenset(waived)) for scenario in scenarios]
    return tuple(new_rules), tuple(new_scenarios), tuple(notes)


def active_rules(
    waivers: Sequence[Waiver],
    *,
    label: str,
    display: str,
    today: datetime.date | None = None,
) -> frozenset[str]:
    """The rules a waiver of this target covers today (expired ones left out)."""
    today = today if today is not None else datetime.date.today()
    return frozenset(
        w.rule for w in waivers if matches_target(w, label, display) and not w.expired(today)
    )


def waive_scenario(scenario: ScenarioFinished, waived: frozenset[str]) -> ScenarioFinished:
    """``scenario`` made ``waived`` when every gate failure in it is of a waived rule (its
    advisory failures, if any, then make it a warning)."""
    gate = [f for f in scenario.failures if f.level is Level.GATE]
    if scenario.outcome is not Outcome.FAILED or not gate:
        return scenario
    if not all(f.rule in waived for f in gate):
        return scenario
    rest = [f for f in scenario.failures if f.rule not in waived]
    outcome = scenario_outcome(rest)
    rules = ", ".join(sorted({f.rule for f in gate}))
    return dataclasses.replace(
        scenario,
        outcome=Outcome.WAIVED if outcome is Outcome.PASSED else outcome,
        reason=scenario.reason or f"its failures are waived: {rules}",
    )
