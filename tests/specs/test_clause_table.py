"""docs/clauses.md: each clause of the specification, the rules that enforce it and the
scenarios that check them, generated and kept current."""

from __future__ import annotations

from pathlib import Path

from patgate.scenario import load_catalogue
from patgate.scenario.clause_table import current

PAGE = Path(__file__).resolve().parents[2] / "docs/clauses.md"
REGEN = "regenerate with `python -m patgate.scenario.clause_table docs/clauses.md`"


def test_the_clause_table_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == current(), REGEN


def test_every_gate_rule_is_in_the_row_of_its_clause() -> None:
    text = current()
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    for rule in load_catalogue():
        if not rule.is_gate:
            continue
        assert rule.source is not None
        quote = rule.source.clauses[0].replace("<", "&lt;").replace(">", "&gt;")
        holding = [row for row in rows if quote in row.split(" | ")[0]]
        assert holding, rule.id
        assert all(f"`{rule.id}`" in row for row in holding), rule.id


def test_a_clause_the_specification_leaves_open_has_no_rule() -> None:
    rows = [
        line
        for line in current().splitlines()
        if line.startswith("| ") and "not shown" in line.split(" | ")[0]
    ]
    assert rows
    assert all("none: the specification is silent" in row for row in rows)
