"""The recipe "A gate rule" holds when followed, in a copy of the tree.

A toy gate rule (``TOY-SESSION-EXPIRES-IN``: section 2.5 says ``session_expires_in`` is an
integer) goes into the catalogue with its scenario, its fault twin and the independent
deployment's switch; one command regenerates the clause table. The test checks that the
recipe touched at most :data:`MOST_TOUCHED` files, every one named in the recipe, and that in
the copy the rule passes on the fake and on the conforming independent deployment, fails on
the fake with its fault, and fails on the independent deployment with its switch.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.recipes.test_recipes import (
    ROOT,
    Insert,
    Regenerate,
    _apply,
    _copy_tree,
    _digests,
    _environment,
)

MOST_TOUCHED = 6
HEADING = "**A gate rule.**"
RECIPE = """**A gate rule.** Five files, one of them regenerated; follow them in order.
- [ ] `specs/rules.yaml`: the rule under `rules:` with `level: gate`, `id`, `title`,
  `sections`, `summary`, `needs`, and a `source` quoting one clause of the file's
  `specification` (the loader refuses a quote no clause holds).
- [ ] A scenario in `scenarios/` listing it under `rules:`, whose `expect` entries name it
  (`rule: ID`) and use the check kinds of `checks.py` (a new kind: "A check" first); it
  checks nothing beyond the clause.
- [ ] Regenerate `docs/clauses.md`: `python -m patgate.scenario.clause_table docs/clauses.md`.
- [ ] Its fault twin: a `Fault` in `FAULTS` of `tests/selftest/faults.py` (a `Deployment`
  subclass overriding a public seam, or `wrap_app=rewrite(...)` altering the answer), so the
  self-test sees the rule fail on the fake and `test_every_gate_rule_has_a_fault` holds.
- [ ] The independent deployment (`tests/independent/deployment.py`, importing nothing of
  patgate) must already keep the clause: add a switch to `BROKEN_RULES` and the
  `self.break_rule == "switch"` branch that breaks it, so
  `tests/independent/test_gate_fairness.py` sees the rule fail there.
- [ ] Where the fake enforces the rule, the `DomainError` that refuses names it (`rule_id`).
- [ ] Run `tests/specs/test_rules.py`, `tests/runner/test_engine.py`,
  `tests/selftest/test_faults.py` and `tests/independent/test_gate_fairness.py`;
  `tests/recipes/test_gate_rule_recipe.py` follows this recipe in a copy of the tree."""

RULE = "TOY-SESSION-EXPIRES-IN"
SWITCH = "session_as_text"

STEPS = (
    Insert(
        "specs/rules.yaml",
        f"""  - id: {RULE}
    title: The token response's session_expires_in is an integer
    sections: ["2.5"]
    level: gate
    source:
      section: "2.5"
      clause: "session_expires_in: integer. Present in the response."
    summary: A toy gate rule, checked by a toy scenario.
    needs: {{writes: false, waits: false, control: false}}

""",
        after="\nrules:\n",
    ),
    Insert(
        "scenarios/toy-session-expiry.yaml",
        f"""id: toy-session-expiry
title: The token response's session_expires_in is an integer
rules: [{RULE}]
steps:
  - name: ask for a token
    token:
      client_id: ${{client_id}}
      client_secret: ${{client_secret}}
      grant_type: client_credentials
    expect:
      - {{path: session_expires_in, type: integer, rule: {RULE}}}
""",
    ),
    Regenerate("patgate.scenario.clause_table", ("docs/clauses.md",)),
    Insert(
        "tests/selftest/faults.py",
        """

def _session_expiry_as_text(request: WireRequest, response: WireResponse, body: Any) -> Any:
    if response.status == 200 and "session_expires_in" in body:
        body["session_expires_in"] = str(body["session_expires_in"])
    return body
""",
        after='        body["expires_in"] = str(body["expires_in"])\n    return body\n',
    ),
    Insert(
        "tests/selftest/faults.py",
        f"""    Fault(
        "session_expires_in is a string",
        "{RULE}",
        _set("{RULE}"),
        wrap_app=rewrite("/oauth/token", _session_expiry_as_text),
    ),
""",
        after="FAULTS: tuple[Fault, ...] = (\n",
    ),
    Insert(
        "tests/independent/deployment.py",
        f'    "{SWITCH}": "{RULE}",\n',
        after="BROKEN_RULES: dict[str, str] = {\n",
    ),
    Insert(
        "tests/independent/deployment.py",
        '            **({"session_expires_in": "7200"}'
        f' if self.break_rule == "{SWITCH}" else {{}}),\n',
        after='            "session_expires_in": SESSION_EXPIRES_IN,\n',
    ),
)

GENERATED = ("docs/clauses.md",)

INNER_TESTS = (
    "tests/specs/test_rules.py",
    "tests/runner/test_engine.py::test_the_unmodified_fake_passes_every_scenario_and_rule",
    "tests/selftest/test_faults.py::test_every_gate_rule_has_a_fault",
    "tests/independent/test_gate_fairness.py"
    "::test_the_conforming_deployment_passes_every_gate_rule_it_can_check",
)
"""The rule passes on the fake and on the conforming independent deployment."""

TWIN_TESTS = (
    "tests/selftest/test_faults.py::test_the_scenarios_of_a_rule_catch_its_fault",
    "tests/independent/test_gate_fairness.py::test_a_broken_documented_rule_fails_its_gate_rule",
)
"""The rule fails on the fake with its fault and on the independent deployment with its
switch (each parametrized: only the toy's case runs)."""


def _recipe_text() -> str:
    """ARCHITECTURE.md's recipe once it is there; until then the text to add, above."""
    architecture = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    if HEADING in architecture:
        return HEADING + architecture.split(HEADING, 1)[1].split("\n\n", 1)[0]
    return RECIPE


def test_architecture_shows_the_recipe_the_test_follows() -> None:
    assert _recipe_text() == RECIPE


def _pytest(tree: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    return subprocess.run(
        [*command, "-n", "0", "--run-slow", *arguments],
        cwd=tree,
        env=_environment(tree),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


@pytest.mark.slow
def test_following_the_gate_rule_recipe_adds_a_rule_the_gate_holds(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path / "tree")
    before = _digests(tree)
    for step in STEPS:
        _apply(step, tree)
    after = _digests(tree)
    touched = sorted(path for path in after if before.get(path) != after[path])
    edited = {step.path for step in STEPS if isinstance(step, Insert)}
    assert len(touched) <= MOST_TOUCHED, touched
    assert set(touched) - edited <= set(GENERATED), touched
    text = _recipe_text()
    for path in touched:
        shown = path.removeprefix("src/patgate/")
        folder = shown.rpartition("/")[0] + "/"
        new_in_named_folder = path not in before and f"`{folder}`" in text
        assert shown in text or new_in_named_folder, f"the recipe never names {path}"
    done = _pytest(tree, *INNER_TESTS)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    twins = _pytest(tree, *TWIN_TESTS, "-k", f"session_expires_in or {SWITCH}")
    assert twins.returncode == 0, twins.stdout[-4000:] + twins.stderr[-2000:]
    assert "2 passed" in twins.stdout, twins.stdout[-4000:]  # the fault's case and the switch's
