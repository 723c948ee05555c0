"""specs/rules.yaml, the rule catalogue: well formed, complete, and the source cites it right."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import patgate
from patgate.basics.resources import specs_dir

RULE_ID = re.compile(r"^[A-Z]+(-[A-Z]+)+$")
SPEC_SECTION = re.compile(r"^[1-9](\.[0-9]+)*$")
LEVELS = {"gate", "advisory"}
NEEDS = {"writes", "waits", "control"}

# The topics the catalogue must cover (the spec's rules, one id each).
REQUIRED_IDS = (
    "TOKEN-OK",
    "TOKEN-BAD-CREDENTIALS",
    "TOKEN-GRANT-TYPE",
    "AUTH-REQUIRED",
    "CONTENT-CLIENT-TOKEN",
    "CONTENT-PAT",
    "PAT-CREATE-FIELDS",
    "PAT-FORMAT",
    "PAT-SINGLE-REVEAL",
    "PAT-LIST-MASKED",
    "PAT-LIST-OWN",
    "PAT-LAST-USED",
    "PAT-CAP",
    "PAT-ADMIN-ONLY",
    "PAT-OWNER-LOOKUP",
    "PAT-DELETE",
    "PAT-DELETE-OWN-ONLY",
    "PAT-REMOVED-USER",
    "PAT-LOST-PERMISSION",
    "PAT-APPROVAL",
    "PAT-NO-EXPIRY",
    "CLIENT-TOKEN-EXPIRY",
)


@functools.cache
def catalogue() -> tuple[dict[str, Any], ...]:
    document = yaml.safe_load((specs_dir() / "rules.yaml").read_text(encoding="utf-8"))
    assert isinstance(document, dict), "rules.yaml holds a mapping"
    rules = document.get("rules")
    assert isinstance(rules, list), "rules.yaml has a list under 'rules'"
    assert all(isinstance(rule, dict) for rule in rules), "each rule is a mapping"
    return tuple(rules)


def rule_ids() -> list[str]:
    return [str(rule.get("id")) for rule in catalogue()]


def _by_id() -> list[Any]:
    return [pytest.param(rule, id=str(rule.get("id"))) for rule in catalogue()]


def test_ids_are_unique() -> None:
    ids = rule_ids()
    assert sorted({i for i in ids if ids.count(i) > 1}) == []


@pytest.mark.parametrize("rule", _by_id())
def test_rule_is_well_formed(rule: dict[str, Any]) -> None:
    assert isinstance(rule.get("id"), str)
    assert RULE_ID.match(rule["id"]), f"{rule['id']!r} is not like TOKEN-OK"
    assert isinstance(rule.get("title"), str)
    assert rule["title"].strip()
    sections = rule.get("sections")
    assert isinstance(sections, list)
    assert sections, "a rule names the section(s) it comes from"
    assert all(isinstance(section, str) and section.strip() for section in sections)
    assert rule.get("level") in LEVELS
    needs = rule.get("needs")
    assert isinstance(needs, dict)
    assert set(needs) == NEEDS
    assert all(isinstance(value, bool) for value in needs.values()), needs


@pytest.mark.parametrize(
    "rule", [param for param in _by_id() if param.values[0].get("level") == "gate"]
)
def test_gate_rule_cites_a_spec_section(rule: dict[str, Any]) -> None:
    # A gate fails a deployment, so it must rest on something the spec itself states.
    assert any(SPEC_SECTION.match(section) for section in rule["sections"]), rule["sections"]


def test_catalogue_covers_the_spec() -> None:
    assert [rule_id for rule_id in REQUIRED_IDS if rule_id not in rule_ids()] == []


def _cited_rule_ids(path: Path) -> set[str]:
    """Rule ids written literally in a module: ``rule_id=``/``rule=`` keyword arguments and
    ``default_rule`` class attributes. An empty string means "no rule" and is not a citation.
    """
    cited: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        values: list[ast.expr] = []
        if isinstance(node, ast.keyword) and node.arg in {"rule_id", "rule"}:
            values.append(node.value)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "default_rule" for t in targets):
                values.extend([node.value] if node.value is not None else [])
        for value in values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value:
                cited.add(value.value)
    return cited


def test_every_rule_id_in_the_source_is_in_the_catalogue() -> None:
    package = Path(patgate.__file__).parent
    cited = {
        (rule_id, str(path.relative_to(package)))
        for path in sorted(package.rglob("*.py"))
        for rule_id in _cited_rule_ids(path)
    }
    # The fake's domain errors cite rules; finding none would mean this scan is broken.
    assert len(cited) >= 5
    known = set(rule_ids())
    assert sorted((rule_id, module) for rule_id, module in cited if rule_id not in known) == []


def test_the_scan_finds_each_way_a_rule_is_cited(tmp_path: Path) -> None:
    module = tmp_path / "sample.py"
    module.write_text(
        "class Refused(Exception):\n"
        '    default_rule = "PAT-CAP"\n'
        'raise Refused("no", rule_id="PAT-TYPO")\n'
        'raise Refused("no", rule_id="")\n'
        'fail(rule="TOKEN-OK", title="t")\n',
        encoding="utf-8",
    )
    assert _cited_rule_ids(module) == {"PAT-CAP", "PAT-TYPO", "TOKEN-OK"}


def test_needs_are_what_the_scenarios_covering_each_rule_need() -> None:
    # A rule needs writes (waits, control) when every scenario covering it does: a run
    # without them still checks the rule through the others.
    from patgate.basics.resources import scenarios_dir
    from patgate.scenario import load_scenarios

    scenarios = load_scenarios([scenarios_dir()])
    wrong = []
    for rule in catalogue():
        covering = [s for s in scenarios if rule["id"] in s.rules]
        if not covering:
            continue
        derived = {
            "writes": all(s.writes for s in covering),
            "waits": all(s.waits for s in covering),
            "control": all(s.control for s in covering),
        }
        if rule["needs"] != derived:
            wrong.append(f"{rule['id']}: rules.yaml says {rule['needs']}, scenarios {derived}")
    assert wrong == []


# -- every rule traces to the documentation ----------------------------------------------------


def _clauses() -> dict[str, list[str]]:
    document = yaml.safe_load((specs_dir() / "rules.yaml").read_text(encoding="utf-8"))
    return {
        str(section["section"]): [" ".join(c.split()) for c in section["clauses"]]
        for section in document["specification"]
    }


def _quotes(source: dict[str, Any]) -> list[str]:
    clause = source["clause"]
    return [" ".join(q.split()) for q in (clause if isinstance(clause, list) else [clause])]


@pytest.mark.parametrize(
    "rule", [param for param in _by_id() if param.values[0].get("level") == "gate"]
)
def test_gate_rule_quotes_the_clause_it_enforces(rule: dict[str, Any]) -> None:
    # A gate fails a deployment only over what the specification states: its source is a
    # section and a quote of one of that section's clauses, never a "not shown" gap.
    source = rule.get("source")
    assert isinstance(source, dict), "a gate rule has a source"
    assert set(source) - {"also"} == {"section", "clause"}, "a documented clause"
    assert source["section"] in rule["sections"]
    for quoted in [source, *source.get("also", [])]:
        clauses = _clauses()[quoted["section"]]
        for quote in _quotes(quoted):
            holding = [clause for clause in clauses if quote in clause]
            assert holding, f"{quote!r} is not part of a clause of section {quoted['section']}"
            assert not any("not shown" in clause for clause in holding), quote


@pytest.mark.parametrize("rule", _by_id())
def test_every_rule_names_its_source(rule: dict[str, Any]) -> None:
    source = rule.get("source")
    assert isinstance(source, dict)
    assert ("section" in source) != ("convention" in source)
    assert _quotes(source)
    assert all(quote.strip() for quote in _quotes(source))


def test_the_specification_is_restated_section_by_section() -> None:
    sections = list(_clauses())
    assert all(SPEC_SECTION.match(section) for section in sections)
    # Sections 1 to 9, each once.
    assert sorted({s.split(".")[0] for s in sections}) == [str(n) for n in range(1, 10)]
    assert len(sections) == len(set(sections))


def test_the_loader_gives_each_rule_its_source() -> None:
    from patgate.scenario import load_catalogue

    catalogue = load_catalogue()
    date_rule = catalogue["PAT-DATE-FORMAT"]
    assert date_rule.source is not None
    assert date_rule.source.section == "2.1"
    assert any("lastUsedDate" in quote for quote in date_rule.source.clauses)
    challenge = catalogue["AUTH-CHALLENGE"].source
    assert challenge is not None
    assert not challenge.documented
    assert challenge.convention == "RFC 6750 3.1"
    assert catalogue.sections["4.3"].title == "GraphQL asset management API operations"


def _variant(tmp_path: Path, change: str, replacement: str) -> Path:
    text = (specs_dir() / "rules.yaml").read_text(encoding="utf-8")
    assert change in text
    path = tmp_path / "rules.yaml"
    path.write_text(text.replace(change, replacement, 1), encoding="utf-8")
    return path


_CAP_SOURCE = (
    '    source:\n      section: "8"\n      clause: "PATs per user: Up to 5"\n'
    '      also:\n        - section: "7"\n'
    '          clause: "Creation when the user already has 5 tokens: Not permitted."\n'
)


@pytest.mark.parametrize(
    ("replacement", "message"),
    [
        pytest.param("", "rule PAT-CAP: missing 'source'", id="no source"),
        pytest.param(
            '    source:\n      convention: "habit"\n      clause: "at most 5"\n',
            "rule PAT-CAP: a gate rule's source is a section",
            id="a convention",
        ),
        pytest.param(
            '    source:\n      section: "8"\n      clause: "PATs per user: Up to 6"\n',
            "rule PAT-CAP: source quotes 'PATs per user: Up to 6', which is not part of any "
            "clause of section 8 (Limits)",
            id="a quote the section lacks",
        ),
        pytest.param(
            '    source:\n      section: "8.9"\n      clause: "PATs per user: Up to 5"\n',
            "rule PAT-CAP: source names section 8.9, which the specification lacks",
            id="a section the specification lacks",
        ),
        pytest.param(
            '    source:\n      section: "8"\n      clause: "PATs per user: Up to 5"\n'
            '      also:\n        - section: "7"\n          clause: "Creation of 6 tokens"\n',
            "rule PAT-CAP: source quotes 'Creation of 6 tokens', which is not part of any "
            "clause of section 7 (Errors)",
            id="another section's quote it lacks",
        ),
    ],
)
def test_the_loader_refuses_a_gate_rule_without_a_documented_clause(
    tmp_path: Path, replacement: str, message: str
) -> None:
    from patgate.errors import UsageError
    from patgate.scenario.catalogue import load_catalogue

    path = _variant(tmp_path, _CAP_SOURCE, replacement)
    with pytest.raises(UsageError) as refused:
        load_catalogue(path)
    text = str(refused.value)
    assert text.startswith(f"{path}:")
    assert message in text
    line = int(text.split(":")[1])
    assert "PAT-CAP" in "".join(path.read_text(encoding="utf-8").splitlines()[line - 12 : line])
