"""The proof: calibrate an independent deployment, compare it with the default fake and with
the calibrated one, and run a client written against it on the calibrated fake.

The deployment (tests/independent/) shares no code with patgate, follows every documented
rule and chooses otherwise wherever the documentation is silent.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import patgate
from patgate.calibration.comparison import compare_results, held_keys, probe_fake, probe_live
from patgate.calibration.probes import FIELDS, NOT_PROFILE_FIELDS, ProbeResult
from patgate.calibration.profile_document import calibrated_document, render_profile
from patgate.cli import main
from patgate.fake.profile import default_profile, load_profile
from patgate.runner.connection.config import TargetConfig
from patgate.runner.context import RunOptions
from patgate.runner.session import target_redactor

from ..independent.deployment import IndependentDeployment, running_independent_deployment

"""What a calibrated fake of this deployment cannot answer alike (each with why)."""

PROFILE_FIELDS = [
    name for name in FIELDS if name not in NOT_PROFILE_FIELDS and not name.startswith("shapes.")
]
"""The knobs (a shape is checked by compare: the deployment's choices name no shape)."""


def _get(document: dict[str, Any], dotted: str) -> Any:
    if dotted.startswith("refusal_messages."):
        _, operation, kind = dotted.split(".")
        own = document["refusal_messages"].get(operation, {}).get(kind)
        return own if own is not None else document["refusals"][kind]["message"]
    for part in dotted.split("."):
        document = document[part]
    return document


def _chosen(choices: dict[str, Any], dotted: str) -> Any:
    """The deployment's choice; a field its choices leave out is the profile's default (as
    the profile loader reads a document that leaves it out)."""
    try:
        return _get(choices, dotted)
    except KeyError:
        return _get(default_profile().as_document(), dotted)


class MovedClock:
    """The deployment's clock, moved by the probes' waits instead of sleeping."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def sleep(self, seconds: float) -> None:
        self.offset += seconds


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The deployment probed once with writes (its clock moved by the waits), the default
    fake probed alike, and the calibrated document."""
    clock = MovedClock()
    ledger = tmp_path_factory.mktemp("ledger") / "ledger.jsonl"
    with running_independent_deployment(clock=clock) as deployment:
        config = TargetConfig(deployment.world)
        options = RunOptions(allow_writes=True, max_wait=3600, ledger_path=ledger)
        before = {t.id for t in deployment.state.tokens.values()}
        target, tallies = probe_live(config, options, target_redactor(config), sleep=clock.sleep)
        after = {t.id for t in deployment.state.tokens.values()}
        fake = probe_fake(None, held_keys(config), allow_writes=True, max_wait=3600)
        calibration = calibrated_document(target, fake, default_profile().as_document())
        yield deployment, target, fake, calibration, tallies, before == after


def test_nothing_is_left_on_the_deployment(calibrated: Any) -> None:
    _, _, _, _, tallies, unchanged = calibrated
    assert tallies.tokens_created >= 5
    assert tallies.tokens_deleted == tallies.tokens_created
    assert not tallies.left_behind
    assert unchanged


def test_calibrating_gives_the_deployments_choices_on_every_field_it_sees(
    calibrated: Any,
) -> None:
    deployment, target, _, calibration, _, _ = calibrated
    choices, document = deployment.choices, calibration.document
    # Every field that differs from the deployment's choice is listed, with why.
    wrong = [n for n in PROFILE_FIELDS if _get(document, n) != _chosen(choices, n)]
    assert [n for n in wrong if n not in calibration.not_observed] == []
    # And those are few: what the fake cannot hold or no bounded probe sees.
    assert set(wrong) <= {
        "hubs.order",  # newest first: no profile holds it
        "rate_limit.requests_per_minute",  # not announced: a probe never bursts
        "refusals.token_limit.status",  # answered inside a 200: no status to see
    }
    default = default_profile().as_document()
    adopted = [n for n in PROFILE_FIELDS if _get(document, n) != _get(default, n)]
    assert len(adopted) >= 20, adopted
    assert target.breaks == []
    load_profile(document)


def test_compare_with_the_default_fake_shows_each_differing_choice(calibrated: Any) -> None:
    deployment, target, fake, _, _, _ = calibrated
    comparison = compare_results(target, fake)
    drifted = {d.field for d in comparison.drift}
    default = default_profile().as_document()
    differing = {
        n
        for n in PROFILE_FIELDS
        if _chosen(deployment.choices, n) != _get(default, n) and target.findings[n].observed
    }
    assert len(differing) >= 8
    assert differing <= drifted
    assert comparison.exit_code == 1
    entry = next(d for d in comparison.drift if d.field == "delete_result.shape")
    assert (entry.fake, entry.target) == ("boolean", "object")
    assert "deletePersonalAccessToken" in entry.request


def test_compare_with_the_calibrated_fake_shows_only_what_no_profile_holds(
    calibrated: Any,
) -> None:
    deployment, target, _, calibration, _, _ = calibrated
    config = TargetConfig(deployment.world)
    again = probe_fake(calibration.document, held_keys(config), allow_writes=True, max_wait=3600)
    comparison = compare_results(target, again)
    left = {d.field for d in comparison.drift}
    # Without the profile's document beside the fake's answers, each difference left is one
    # calibrate named as beyond the profile, with the reason, or one no probe of the fake
    # sees (its hubs share one creation date: their order cannot be seen).
    unseen = set(again.not_observed())
    assert [f for f in left if f not in calibration.not_observed and f not in unseen] == []
    assert left & unseen == {"hubs.order"}


def test_compare_with_the_calibrated_fake_finds_no_drift(calibrated: Any) -> None:
    deployment, target, _, calibration, _, _ = calibrated
    config = TargetConfig(deployment.world)
    again = probe_fake(calibration.document, held_keys(config), allow_writes=True, max_wait=3600)
    profile = load_profile(calibration.document).as_document()
    comparison = compare_results(target, again, profile=profile)
    assert comparison.drift == []
    assert comparison.exit_code == 0


def test_the_written_profile_lists_what_it_did_not_observe(calibrated: Any) -> None:
    deployment, _, _, calibration, _, _ = calibrated
    text = render_profile(calibration, target="independent", allow_writes=True)
    assert "#   rate_limit.requests_per_minute: " in text
    for value in deployment.world.values():
        if len(value) > 12:
            assert value not in text
    assert load_profile(json.loads(json.dumps(calibration.document))) == load_profile(
        calibration.document
    )


# -- a client written against the deployment -----------------------------------------------


def client_session(world: dict[str, str]) -> dict[str, Any]:
    """What a client written against the independent deployment relies on: a page of 10 hubs
    by default, a token masked after 4 characters, a delete answering ``{id deleted}``."""
    headers = {"Authorization": f"Bearer {world['admin_token']}"}
    seen: dict[str, Any] = {}
    with httpx.Client(headers=headers, timeout=10) as client:
        page = client.get(f"{world['base_url']}/v2/content/hubs").json()
        seen["page_size"] = page["page"]["size"]
        made = client.post(
            world["graphql_url"],
            json={
                "query": 'mutation { createPersonalAccessToken(input: {name: "client", '
                f"organizationId: {json.dumps(world['organization_id'])}}}) {{ id token }} }}",
            },
        ).json()["data"]["createPersonalAccessToken"]
        listed = client.post(
            world["graphql_url"],
            json={"query": "{ viewer { personalAccessTokens { id token } } }"},
        ).json()["data"]["viewer"]["personalAccessTokens"]
        masked = next(t["token"] for t in listed if t["id"] == made["id"])
        prefix = world.get("pat_prefix", "amp_pat_")
        seen["visible"] = len(masked[len(prefix) :].rstrip("*"))
        deleted = client.post(
            world["graphql_url"],
            json={
                "query": "mutation { deletePersonalAccessToken(input: "
                f"{{id: {json.dumps(made['id'])}}}) {{ id deleted }} }}",
            },
        ).json()["data"]["deletePersonalAccessToken"]
        seen["deleted"] = (deleted["id"] == made["id"], deleted["deleted"])
    return seen


EXPECTED = {"page_size": 10, "visible": 4, "deleted": (True, True)}


def test_the_client_passes_against_the_deployment(calibrated: Any) -> None:
    with running_independent_deployment() as deployment:
        assert client_session(deployment.world) == EXPECTED


def test_the_client_passes_on_the_calibrated_fake(calibrated: Any) -> None:
    _, _, _, calibration, _, _ = calibrated
    with patgate.Fake(profile=calibration.document) as fake:
        assert client_session(fake.world) == EXPECTED


def test_the_client_fails_on_the_default_fake(calibrated: Any) -> None:
    with patgate.Fake() as fake, pytest.raises((KeyError, TypeError, AssertionError)):
        assert client_session(fake.world) == EXPECTED


@pytest.mark.slow
def test_the_client_passes_on_patgate_serve_with_the_profile(
    calibrated: Any, tmp_path: Path
) -> None:
    _, _, _, calibration, _, _ = calibrated
    profile = tmp_path / "profile.yaml"
    profile.write_text(render_profile(calibration, target="x", allow_writes=True), "utf-8")
    world = tmp_path / "world.json"
    log = tmp_path / "serve.log"
    command = [sys.executable, "-m", "patgate", "serve", "--profile", str(profile)]
    with log.open("wb") as output:
        server = subprocess.Popen(
            [*command, "--world", str(world)], stdout=output, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 30
        while not world.exists() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.05)
        assert world.exists(), log.read_text("utf-8")
        assert client_session(json.loads(world.read_text("utf-8"))) == EXPECTED
    finally:
        server.terminate()
        server.wait(timeout=10)


# -- the command line ------------------------------------------------------------------------


def _world(deployment: IndependentDeployment, tmp_path: Path) -> Path:
    return deployment.write_world(tmp_path / "world.json")


def test_calibrate_and_compare_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # lastUsedDate moving on every use: no wait is needed to see it.
    every_use = {"last_used_date": {"update_interval_seconds": 0}}
    with running_independent_deployment(choices=every_use) as deployment:
        world = str(_world(deployment, tmp_path))
        ledger = str(tmp_path / "ledger.jsonl")
        out = tmp_path / "profile.yaml"
        common = ["--world", world, "--ledger", ledger, "--allow-writes"]
        assert main(["calibrate", *common, "--out", str(out)]) == 0
        written = out.read_text("utf-8")
        # Meant to be committed: the deployment is named by its URL, no path of this machine.
        assert str(tmp_path) not in written
        assert json.loads(Path(world).read_text("utf-8"))["base_url"] in written
        printed = capsys.readouterr().out
        assert "not observed rate_limit.requests_per_minute:" in printed
        assert "listing_order: 'created_descending'" in printed
        report = tmp_path / "drift.json"
        assert main(["compare", *common, "--report", f"json:{report}"]) == 1
        drift = json.loads(report.read_text("utf-8"))
        assert {"drift", "checked"} <= set(drift)
        assert "listing_order" in {d["field"] for d in drift["drift"]}
        calibrated = tmp_path / "calibrated.json"
        # Right after calibrate, compare with the written profile is quiet: nothing accepted.
        assert "\naccepted: []\n" in out.read_text("utf-8")
        code = main(["compare", *common, "--profile", str(out), "--report", f"json:{calibrated}"])
        report = json.loads(calibrated.read_text("utf-8"))
        assert report["drift"] == []
        assert report["accepted"] == []
        assert code == 0
        tokens = len(deployment.state.tokens)
    assert tokens == 4  # one per principal, as it started


@pytest.mark.parametrize(
    ("switch", "writes"),
    [("unmasked_listing", True), ("sixth_token", True), ("member_creates", True)],
)
def test_a_broken_rule_is_not_absorbed(
    switch: str, writes: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_independent_deployment(switch) as deployment:
        world = str(_world(deployment, tmp_path))
        flags = ["--world", world, "--ledger", str(tmp_path / "l.jsonl")]
        flags += ["--allow-writes"] if writes else []
        out = tmp_path / "profile.yaml"
        assert main(["calibrate", *flags, "--out", str(out)]) == 1
        said = capsys.readouterr().err
        assert f"gate failure {deployment.broken_rule}" in said
        assert "patgate run" in said
        report = tmp_path / "r.json"
        assert main(["compare", *flags, "--report", f"json:{report}"]) == 1
        failures = json.loads(report.read_text("utf-8"))["gate_failures"]
        assert [f["rule"] for f in failures] == [deployment.broken_rule]
        assert "patgate run" in failures[0]["hint"]
    load_profile(out)  # the rest is still a profile


def test_a_probe_result_names_every_field(calibrated: Any) -> None:
    _, target, _, _, _, _ = calibrated
    assert isinstance(target, ProbeResult)
    assert set(target.findings) == set(FIELDS)
