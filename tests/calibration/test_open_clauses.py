"""The catalogue of what the specification leaves open: every clause docs/clauses.md marks
"none: the specification is silent" names the profile fields calibration records for it,
each with the probe that sees it, or why no probe can see it; and each name exists."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from patgate.calibration.fields import DERIVED_FIELDS, FIELDS, FIELDS_OF, WRITE_PROBES
from patgate.calibration.probes import PROBES
from patgate.scenario.clause_table import current, load_open_clauses

SILENT = "none: the specification is silent"


def silent_clauses(page: str) -> list[str]:
    """The clauses of the page's tables that the specification leaves open."""
    return [
        line.split(" | ")[0].removeprefix("| ")
        for line in page.splitlines()
        if line.startswith("| ") and SILENT in line
    ]


def catalogue_problems(clauses: Sequence[str], entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """What is wrong with ``entries`` as the catalogue of the open ``clauses``."""
    problems: list[str] = []
    by_clause = {str(e["clause"]).replace("<", "&lt;").replace(">", "&gt;"): e for e in entries}
    probes = {probe.name for probe in PROBES}
    for clause in clauses:
        entry = by_clause.get(clause)
        if entry is None or not (entry.get("records") or entry.get("not_observable")):
            problems.append(f"{clause!r}: neither a profile field nor 'not observable'")
    for clause, entry in by_clause.items():
        if clause not in clauses:
            problems.append(f"{clause!r} is no open clause of the specification")
        for record in entry.get("records") or ():
            field, probe = record.get("field"), record.get("probe")
            if field not in FIELDS:
                problems.append(f"{clause!r}: no probe records a field {field!r}")
            if probe not in probes:
                problems.append(f"{clause!r}: there is no probe {probe!r}")
            elif field not in FIELDS_OF[probe] and not (
                field in DERIVED_FIELDS and probe in WRITE_PROBES
            ):
                problems.append(f"{clause!r}: the {probe!r} probe does not record {field!r}")
    return problems


def test_every_open_clause_names_what_calibration_records_or_why_it_cannot() -> None:
    clauses = silent_clauses(current())
    assert len(clauses) >= 10
    assert catalogue_problems(clauses, load_open_clauses()) == []


def test_the_page_shows_the_catalogue() -> None:
    page = current()
    assert "| Rate limits | `rate_limit.announce` | delete result shape |" in page
    assert "| Events, callbacks and notifications | not observable: " in page


def test_a_clause_left_out_of_the_catalogue_is_caught() -> None:
    clauses = silent_clauses(current())
    entries = [e for e in load_open_clauses() if "Rate limits" not in e["clause"]]
    assert catalogue_problems(clauses, entries) == [
        "'Rate limits: not shown.': neither a profile field nor 'not observable'"
    ]


def test_a_field_or_probe_that_does_not_exist_is_caught() -> None:
    clauses = silent_clauses(current())
    entries = [dict(e) for e in load_open_clauses()]
    rate = next(e for e in entries if e["clause"] == "Rate limits: not shown.")
    rate["records"] = [
        {"field": "rate_limit.burst", "probe": "delete result shape"},
        {"field": "rate_limit.announce", "probe": "rate probe"},
        {"field": "rate_limit.announce", "probe": "hubs listing"},
    ]
    assert catalogue_problems(clauses, entries) == [
        "'Rate limits: not shown.': no probe records a field 'rate_limit.burst'",
        "'Rate limits: not shown.': the 'delete result shape' probe does not record "
        "'rate_limit.burst'",
        "'Rate limits: not shown.': there is no probe 'rate probe'",
        "'Rate limits: not shown.': the 'hubs listing' probe does not record 'rate_limit.announce'",
    ]
