"""``reference/rules.md``: every rule of ``specs/rules.yaml``, its source and its scenarios."""

from __future__ import annotations

from docs.reference_pages import SPECS, cell, generated_notice, source


def render() -> str:
    """The page."""
    scenario = source("catalogue")
    catalogue = scenario.load_catalogue(SPECS["rules"])
    scenarios = scenario.load_scenarios([SPECS["scenarios"]], catalogue=catalogue)
    gates = sum(1 for rule in catalogue if rule.is_gate)
    lines = [
        "# Rules",
        "",
        generated_notice("`specs/rules.yaml`", "the built-in scenarios"),
        f"{len(catalogue.rules)} rules: {gates} gate rules (a failure fails the run) and "
        f"{len(catalogue.rules) - gates} advisory rules (a warning, unless `--strict`). "
        "`patgate rules` prints the same from the command line; [the clauses](../clauses.md)",
        "page lists each clause of the specification with the rules that enforce it.",
        "",
        "| rule | level | title |",
        "|---|---|---|",
        *(
            f"| [`{rule.id}`](#{rule.id.lower()}) | {rule.level.value} | {cell(rule.title)} |"
            for rule in catalogue
        ),
        "",
    ]
    for rule in catalogue:
        covering = [f"`{s.id}`" for s in scenarios if rule.id in s.rules]
        lines += [f"## {rule.id}", "", f"**{rule.level.value}**: {cell(rule.title)}", ""]
        lines += [cell(rule.summary), ""]
        if rule.source is not None:
            lines += [f"Source: {cell(rule.source.cite())}", ""]
        lines += [f"Sections: {', '.join(rule.sections)}.", ""]
        lines += [f"Covered by: {', '.join(covering) or 'no scenario'}.", ""]
    return "\n".join(lines)
