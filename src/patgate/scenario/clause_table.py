"""``docs/clauses.md``: each clause of the specification, the rules that enforce it and the
scenarios that check them, generated from ``specs/rules.yaml`` and the built-in scenarios;
then each clause the specification leaves open with what calibration records for it (the
profile field and its probe, or why no probe can see it), from ``specs/open_clauses.yaml``.

A test requires the page to equal :func:`render`. After changing a rule's source, a rule's
level or a scenario's rules, regenerate it::

    python -m patgate.scenario.clause_table docs/clauses.md
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from patgate.scenario.catalogue import Catalogue, Rule, Section, clause_quoted, load_catalogue
from patgate.scenario.model import Scenario

__all__ = ["OPEN_CLAUSES", "current", "load_open_clauses", "render", "write"]

OPEN_CLAUSES = "open_clauses.yaml"
"""The file in ``specs/`` that maps each open clause to what calibration records."""

_HEAD = """\
# Clauses, rules and scenarios

Generated from `specs/rules.yaml` and `scenarios/` by
`python -m patgate.scenario.clause_table docs/clauses.md`; a test keeps it current.

Every gate rule enforces one clause of the service's specification (its `source`), and its
scenarios check nothing beyond that clause: where the specification says "an error is
returned", any refusal passes; where it says "not shown", no gate rule applies and the fake's
own answer is one choice among many (docs/design.md, "Gate vs advisory").
A rule whose precondition a target does not meet (no hub listed, a link not advertised) is
reported "not checked" with the reason, never failed.

Advisory rules follow a convention (an RFC, a published fact, a security item) or a clause
that is not binding ("generally 300"); a failure is a warning unless `--strict`.
"""


def _cell(items: Iterable[str]) -> str:
    shown = list(items)
    return ", ".join(shown) if shown else "-"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _rules_quoting(catalogue: Catalogue, section: Section, clause: str) -> list[Rule]:
    alone = Section(section.number, section.title, (clause,))
    return [
        rule
        for rule in catalogue
        if rule.source is not None
        and any(
            number == section.number and clause_quoted(alone, quote)
            for number, quote, _ in rule.source.quoting()
        )
    ]


def _rule_name(rule: Rule) -> str:
    return f"`{rule.id}`" if rule.is_gate else f"`{rule.id}` (advisory)"


def _scenarios(rules: Sequence[Rule], scenarios: Sequence[Scenario]) -> str:
    ids = {rule.id for rule in rules}
    return _cell(f"`{s.id}`" for s in scenarios if ids & set(s.rules))


def render(catalogue: Catalogue, scenarios: Sequence[Scenario]) -> str:
    """The page: documented clauses first, then the conventions advisory rules follow."""
    lines = [_HEAD, "## The specification's clauses", ""]
    for section in catalogue.specification:
        lines += [f"### {section.number} {section.title}", ""]
        lines += ["| clause | rule ids | scenarios |", "|---|---|---|"]
        for clause in section.clauses:
            rules = _rules_quoting(catalogue, section, clause)
            if rules:
                names = _cell(_rule_name(rule) for rule in rules)
            elif "not shown" in clause:
                names = "none: the specification is silent"
            else:
                names = "-"
            lines.append(f"| {_escape(clause)} | {names} | {_scenarios(rules, scenarios)} |")
        lines.append("")
    lines += ["## Conventions the advisory rules follow", ""]
    lines += ["| convention | clause | rule id | scenarios |", "|---|---|---|---|"]
    for rule in catalogue:
        source = rule.source
        if source is None or source.documented:
            continue
        quotes = "; ".join(source.clauses)
        lines.append(
            f"| {_escape(source.convention)} | {_escape(quotes)} | `{rule.id}` | "
            f"{_scenarios([rule], scenarios)} |"
        )
    return "\n".join(lines) + "\n"


def load_open_clauses() -> list[dict[str, Any]]:
    """The entries of ``specs/open_clauses.yaml`` (clause, records, not_observable)."""
    import yaml

    from patgate.basics.resources import specs_dir

    text = (specs_dir() / OPEN_CLAUSES).read_text(encoding="utf-8")
    entries: list[dict[str, Any]] = yaml.safe_load(text)
    return entries


def render_open_clauses(entries: Sequence[Mapping[str, Any]]) -> str:
    """The section naming, for each open clause, the profile fields calibration records and
    their probes, or why no probe can see it."""
    lines = [
        "## What the specification leaves open, and what calibration records",
        "",
        "Each clause above that the specification leaves open (`none: the specification is "
        "silent`), with",
        "the profile field `patgate calibrate` records for it and the probe that sees it, or "
        "why none can",
        "(from `specs/open_clauses.yaml`; docs/profile.md describes each field).",
        "",
        "| open clause | profile field | probe |",
        "|---|---|---|",
    ]
    for entry in entries:
        # Named without its "not shown": the rows above say that, this table what is seen.
        clause = _escape(str(entry["clause"]).removesuffix(": not shown."))
        for record in entry.get("records") or ():
            lines.append(f"| {clause} | `{record['field']}` | {record['probe']} |")
        if entry.get("not_observable"):
            why = _escape(" ".join(str(entry["not_observable"]).split()))
            lines.append(f"| {clause} | not observable: {why} | - |")
    return "\n".join(lines) + "\n"


def current() -> str:
    """The page for the shipped catalogue and built-in scenarios."""
    from patgate.basics.resources import scenarios_dir
    from patgate.scenario.loader import load_scenarios

    page = render(load_catalogue(), load_scenarios([scenarios_dir()]))
    return page + "\n" + render_open_clauses(load_open_clauses())


def write(path: Path) -> None:
    """Rewrite the page at ``path``."""
    path.write_text(current(), encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/clauses.md"))
