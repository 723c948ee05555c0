"""The gate judges the documentation, not the fake's choices: an independent deployment that
follows every documented clause and chooses otherwise wherever the documentation is silent
passes with no gate failure; the same deployment with one documented rule broken fails
that rule."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from patgate.basics.levels import Level
from patgate.cli import main
from patgate.runner import LiveTarget, TargetConfig
from patgate.runner.results.events import Outcome, RunFinished
from patgate.runner.results.outcomes import gate_count

from ..runner.support import builtin, run_events
from .deployment import BROKEN_RULES, IndependentDeployment, running_independent_deployment

# What a live target without a control plane cannot check, and the one wait over --max-wait
# 0 (a client token of 3600 s): the only gate rules left not checked, each with its reason.
NOT_CHECKABLE_HERE = {
    "CLIENT-TOKEN-EXPIRY": "--max-wait",
    "PAT-REMOVAL-IMMEDIATE": "control",
    "PAT-APPROVAL": "control",
    "PAT-NO-EXPIRY": "control",
}


def gate_run(
    deployment: IndependentDeployment, tmp_path: Path, rule: str | None = None
) -> RunFinished:
    """Every built-in scenario (or those covering ``rule``) against ``deployment``."""
    target = LiveTarget(TargetConfig(deployment.world))
    _, end = run_events(
        [s for s in builtin() if rule is None or rule in s.rules],
        target,
        allow_writes=True,
        ledger_path=tmp_path / "ledger.jsonl",
        concurrency=2,
    )
    return end


def assert_conforms(end: RunFinished) -> None:
    gates = {rule.rule_id: rule for rule in end.rules if rule.level is Level.GATE}
    failed = {
        rule_id: rule.reason for rule_id, rule in gates.items() if rule.outcome is Outcome.FAILED
    }
    assert failed == {}
    not_passed = {
        rule_id: rule.reason
        for rule_id, rule in gates.items()
        if rule.outcome is not Outcome.PASSED
    }
    assert set(not_passed) == set(NOT_CHECKABLE_HERE), not_passed
    for rule_id, why in NOT_CHECKABLE_HERE.items():
        assert gates[rule_id].outcome is Outcome.NOT_CHECKED
        assert why in not_passed[rule_id]
    assert gate_count(end.rules).passed == len(gates) - len(NOT_CHECKABLE_HERE)
    assert end.exit_code == 0
    assert end.tallies is not None
    assert end.tallies.tokens_created > 0
    assert end.tallies.tokens_created == end.tallies.tokens_deleted
    assert end.tallies.tokens_leaked == 0


def test_the_conforming_deployment_passes_every_gate_rule_it_can_check(tmp_path: Path) -> None:
    with running_independent_deployment() as deployment:
        end = gate_run(deployment, tmp_path)
        assert deployment.state.tokens.keys() == {
            token.id for token in deployment.state.tokens.values() if token.name.endswith(" key")
        }, "the run left a token behind"
    assert_conforms(end)
    warned = {rule.rule_id for rule in end.rules if rule.outcome is Outcome.WARNING}
    # "expires_in ... Generally 300": 3600 is allowed, and only advised against.
    assert warned == {"TOKEN-LIFETIME"}


def test_with_a_control_plane_every_gate_rule_is_checked_and_passes(tmp_path: Path) -> None:
    # Given the stage controls patgate's own served fake offers (remove a user, demote an
    # admin, the UI's token requests, move the clock), the rules that need them are checked
    # against this deployment too: expiry after 3600 s, no expiry after 400 days, approval.
    with running_independent_deployment(control=True) as deployment:
        end = gate_run(deployment, tmp_path)
    count = gate_count(end.rules)
    assert count.all_checked
    assert count.failed == 0
    assert count.passed == len([rule for rule in end.rules if rule.level is Level.GATE])
    assert end.exit_code == 0


@pytest.mark.parametrize("switch", sorted(BROKEN_RULES))
def test_a_broken_documented_rule_fails_its_gate_rule(tmp_path: Path, switch: str) -> None:
    with running_independent_deployment(switch, control=True) as deployment:
        end = gate_run(deployment, tmp_path, BROKEN_RULES[switch])
    failed = {rule.rule_id for rule in end.rules if rule.outcome is Outcome.FAILED}
    assert BROKEN_RULES[switch] in failed
    assert end.exit_code == 1


@pytest.mark.slow
def test_patgate_run_world_passes_it_and_fails_it_broken(tmp_path: Path) -> None:
    verdicts = {}
    for switch in (None, "sixth_token"):
        folder = tmp_path / (switch or "conforming")
        folder.mkdir()
        with running_independent_deployment(switch) as deployment:
            world = deployment.write_world(folder / "world.json")
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "patgate",
                    "run",
                    "--world",
                    str(world),
                    "--allow-writes",
                    "--ledger",
                    str(folder / "ledger.jsonl"),
                    "--report",
                    f"json:{folder / 'report.json'}",
                ],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
                cwd=folder,
            )
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        verdicts[switch] = (done.returncode, report)
        assert deployment.world["admin_token"] not in done.stdout + done.stderr
    code, report = verdicts[None]
    assert code == 0, report["gate_rules"]
    assert report["gate_rules"]["failed"] == 0
    assert {entry["id"] for entry in report["gate_rules"]["not_checked"]} == set(NOT_CHECKABLE_HERE)
    assert report["counts"]["tokens_leaked"] == 0
    code, report = verdicts["sixth_token"]
    assert code == 1
    outcomes = {rule["id"]: rule["outcome"] for rule in report["rules"]}
    assert outcomes["PAT-CAP"] == "failed"
    assert report["gate_rules"]["failed"] == 1


def test_without_introspection_an_organization_the_viewer_lacks_still_warns(
    tmp_path: Path,
) -> None:
    # The twin of trying each organizations shape: a shape that validates but does not hold
    # the organization is still a finding, not a pass.
    with running_independent_deployment(introspection=False) as deployment:
        world = {**deployment.world, "organization_id": "org-of-nobody"}
        chosen = [s for s in builtin() if s.id == "org-discovery"]
        _, end = run_events(chosen, LiveTarget(TargetConfig(world)), every_rule=False)
    (rule,) = (rule for rule in end.rules if rule.rule_id == "ORG-DISCOVERY")
    assert rule.outcome is Outcome.WARNING


def test_a_rate_limit_leaves_rules_not_checked_never_failed(tmp_path: Path) -> None:
    # 60 requests a minute per credential, more than a run's admin token gets: the
    # documentation shows no rate limit, so a 429 that stands is no finding.
    with running_independent_deployment(
        choices={"rate_limit": {"requests_per_minute": 60}}
    ) as deployment:
        _, end = run_events(
            builtin(),
            LiveTarget(TargetConfig(deployment.world)),
            allow_writes=True,
            ledger_path=tmp_path / "ledger.jsonl",
            retry_budget=0.0,
        )
    gates = [rule for rule in end.rules if rule.level is Level.GATE]
    assert not [rule.rule_id for rule in gates if rule.outcome is Outcome.FAILED]
    limited = [rule for rule in gates if "answered 429" in rule.reason]
    assert limited, "the run never met the rate limit: the test proves nothing"
    for rule in gates:
        if rule.outcome is not Outcome.PASSED:
            assert rule.rule_id in NOT_CHECKABLE_HERE or "answered 429" in rule.reason


def test_the_fakes_choices_pass_too(tmp_path: Path) -> None:
    # The other side of the same coin: a deployment choosing as the fake does (a Boolean
    # delete, oldest first, milliseconds everywhere) passes the same way.
    fake_like = {
        "delete_result": {"shape": "boolean"},
        "listing_order": "created_ascending",
        "date_precision": {"lastUsedDate": "milliseconds"},
        "last_used_date": {"update_interval_seconds": 0},
        "masked_token": {"visible_characters": 8, "mask_width": 32},
        "client_token": {"expires_in": 300, "token_type": "Bearer"},
    }
    with running_independent_deployment(choices=fake_like) as deployment:
        assert deployment.choices["delete_result"]["shape"] == "boolean"
        end = gate_run(deployment, tmp_path)
    assert_conforms(end)


def test_open_points_at_their_edges_pass(tmp_path: Path) -> None:
    # Each choice the documentation leaves open, pushed to a far value at once, on a
    # deployment that answers no introspection.
    edges = {
        "pat_name": {"max_length": 32},
        "masked_token": {"visible_characters": 1, "mask_width": 1},
        "pages": {"default_size": 1, "maximum_size": 1},
        "delete_result": {"object_type": "Gone", "fields": {"name": "name"}},
        "listing_order": "name_ascending",
        "refusals": {
            "forbidden": {"status": 404},
            "not_found": {"status": 400},
            "token_limit": {"status": 403},
        },
    }
    with running_independent_deployment(choices=edges, introspection=False) as deployment:
        end = gate_run(deployment, tmp_path)
    assert_conforms(end)


def test_what_a_rate_limit_left_behind_is_deleted_by_patgate_cleanup(tmp_path: Path) -> None:
    # A delete refused with 429 leaves its token on the target: the run says so and names
    # the command; once the limit's minute has passed, that command deletes it.
    shift = {"seconds": 0.0}

    def clock() -> float:
        return time.time() + shift["seconds"]

    ledger = tmp_path / "ledger.jsonl"
    limited = {"rate_limit": {"requests_per_minute": 40}}
    with running_independent_deployment(clock=clock, choices=limited) as deployment:
        _, end = run_events(
            builtin(),
            LiveTarget(TargetConfig(deployment.world)),
            allow_writes=True,
            ledger_path=ledger,
            retry_budget=0.0,
        )
        assert end.tallies is not None
        assert end.tallies.tokens_leaked > 0, "no delete met the limit: nothing to clean up"
        assert end.exit_code == 1
        world = deployment.write_world(tmp_path / "world.json")
        cleanup = ["cleanup", "--world", str(world), "--ledger", str(ledger)]
        assert main(cleanup) == 1  # still within the limit's minute: refused again
        shift["seconds"] += 61
        assert main(cleanup) == 0
        left = sorted(token.name for token in deployment.state.tokens.values())
    assert left == ["admin key", "member key", "removed key", "unpermitted key"]
