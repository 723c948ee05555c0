"""The second independent deployment: eleven choices where the documentation is silent, a
client relying on each, the default fake differing on each, and the gate passing it."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

import patgate
from patgate.basics.levels import Level
from patgate.runner.results.events import Outcome
from patgate.runner.results.outcomes import gate_count

from . import second_client
from .deployment import (
    BROKEN_RULES,
    INDEPENDENT_CHOICES,
    SECOND_CHOICE_PARTS,
    SECOND_CHOICES,
    IndependentDeployment,
    running_independent_deployment,
)
from .open_choices import FURTHER_CHOICES, merged_over
from .test_gate_fairness import NOT_CHECKABLE_HERE, gate_run

CHOICES = sorted(SECOND_CHOICE_PARTS)
FIELD_NAMES = {
    "token_type_absent": ["client_token.token_type"],
    "token_extra_fields": ["shapes.token.body.keys.scope"],
    "problem_json_errors": ["content_errors.format"],
    "last_used_microseconds": ["date_precision.lastUsedDate", "date_offset.lastUsedDate"],
    "refusal_status": ["graphql.refusal_status", "refusals.token_limit.status"],
    "over_maximum_cut": ["pages.over_maximum"],
    "hubs_name_descending": ["hubs.order"],
    "hub_extra_fields": ["shapes.hub.body.keys.region", "shapes.hub.body.keys.plan"],
    "self_only_pages": ["pages.links"],
    "admin_pat_creates": [
        "pat_creation.client_credentials",
        "refusal_messages.create_token.forbidden",
    ],
    "announced_rate_limit": ["rate_limit.requests_per_minute", "rate_limit.announce"],
}
"""Each choice's fields, as FIDELITY names them in the profile contract."""


def _get(document: Mapping[str, Any], dotted: str) -> Any:
    value: Any = document
    for part in dotted.split("."):
        value = value[part]
    return value


@pytest.fixture(scope="module")
def second() -> Iterator[IndependentDeployment]:
    with running_independent_deployment(choices=SECOND_CHOICES) as deployment:
        yield deployment


def token_names(deployment: IndependentDeployment) -> list[str]:
    with deployment.state.lock:
        return sorted(token.name for token in deployment.state.tokens.values())


STARTING_TOKENS = ["admin key", "member key", "removed key", "unpermitted key"]


# -- the choices, written down ---------------------------------------------------------------


def test_there_are_eleven_choices_each_set_by_its_named_fields() -> None:
    assert len(SECOND_CHOICE_PARTS) == 11
    assert set(SECOND_CHOICE_PARTS) == set(second_client.RELIANCES) == set(FIELD_NAMES)
    first = merged_over(INDEPENDENT_CHOICES, FURTHER_CHOICES)
    for choice, part in SECOND_CHOICE_PARTS.items():
        for field in FIELD_NAMES[choice]:
            chosen = _get(part, field)
            assert _get(SECOND_CHOICES, field) == chosen, (choice, field)
            try:
                before = _get(first, field)
            except KeyError:  # a shape's key or a message the first deployment lacks
                continue
            assert before != chosen or field in {
                "pages.links",  # the first deployment's pages are self-only too
                "pat_creation.client_credentials",  # nor does it create for a client
            }, (choice, field)
    assert SECOND_CHOICES["client_token"]["token_type"] is None
    assert SECOND_CHOICES["shapes"]["token"]["body"]["keys"]["scope"]["sample"] == "content"


def test_the_second_deployment_declares_what_it_serves(second: IndependentDeployment) -> None:
    assert merged_over(second.choices, SECOND_CHOICES) == second.choices
    second.choices["pages"]["maximum_size"] = 1  # a copy: the deployment is not changed
    assert second.state.choices["pages"]["maximum_size"] == 50


# -- the client relies on each choice -------------------------------------------------------


@pytest.mark.parametrize("choice", CHOICES)
def test_the_client_passes_against_the_second_deployment(
    choice: str, second: IndependentDeployment
) -> None:
    second_client.RELIANCES[choice](second.world)
    assert token_names(second) == STARTING_TOKENS, "the client left a token behind"


def test_what_the_client_reads_is_what_the_deployment_chose(second: IndependentDeployment) -> None:
    world = second.world
    assert second_client.token_answer_has_scope_and_session(world) == "content"
    assert second_client.hubs_come_by_name_descending(world) == ["shop", "news", "blog"]
    assert second_client.hubs_paged_by_number(world) == ["shop", "news", "blog"]
    assert second_client.page_over_the_maximum_is_cut(world) == 50
    assert second_client.rate_limit_is_announced(world) == 1200
    regions = second_client.hubs_carry_region_and_plan(world)
    assert sorted(regions.values()) == [
        ("ap-south-1", "trial"),
        ("eu-west-1", "enterprise"),
        ("us-east-2", "standard"),
    ]
    problem = second_client.content_errors_are_problem_details(world)
    assert (problem["status"], problem["detail"]) == (422, "The input is not valid.")
    used = second_client.last_used_date_has_microseconds(world)
    assert str(used.utcoffset()) == "0:00:00"


@pytest.fixture
def default_fake(second: IndependentDeployment) -> Iterator[dict[str, str]]:
    """patgate's default fake answering on the second deployment's own addresses (strict:
    nothing reaches the deployment), and its target file."""
    urls = {key: second.world[key] for key in ("auth_url", "base_url", "graphql_url")}
    with patgate.Fake(urls=urls, strict=True) as fake:
        world = fake.world
        assert {key: world[key] for key in urls} == urls
        yield world


@pytest.mark.parametrize("choice", CHOICES)
def test_the_client_fails_against_the_default_fake(
    choice: str, default_fake: dict[str, str], second: IndependentDeployment
) -> None:
    # The proof that the default fake differs on each choice: the client says which.
    reliance = second_client.RELIANCES[choice]
    with pytest.raises(AssertionError, match=f"choice {choice}"):
        reliance(default_fake)
    assert token_names(second) == STARTING_TOKENS, "a request reached the deployment"


# -- each choice is served, and can be chosen away --------------------------------------------


@pytest.mark.parametrize("choice", CHOICES)
def test_without_the_choice_the_client_fails_on_it(choice: str) -> None:
    # The twin of the passing client: the second deployment with this one choice left as the
    # first deployment makes it; the client's function for it fails and names it.
    first = merged_over(INDEPENDENT_CHOICES, FURTHER_CHOICES)
    undone = copy.deepcopy(SECOND_CHOICES)
    for field in FIELD_NAMES[choice]:
        *parents, last = field.split(".")
        holder = _get(undone, ".".join(parents)) if parents else undone
        try:
            holder[last] = copy.deepcopy(_get(first, field))
        except KeyError:  # a shape's key or a message the first deployment does without
            del holder[last]
    if choice == "token_type_absent":  # a token shape that lists it, as the first serves it
        undone["shapes"]["token"]["body"]["keys"]["token_type"] = {"type": "string"}
    elif choice == "self_only_pages":  # the first deployment's pages are self-only too
        undone["pages"]["links"] = ["self", "first", "prev", "next", "last"]
    with running_independent_deployment(choices=undone) as deployment:
        with pytest.raises(AssertionError, match=f"choice {choice}"):
            second_client.RELIANCES[choice](deployment.world)
        assert token_names(deployment) == STARTING_TOKENS


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"hubs": {"order": "random"}}, "hubs.order"),
        ({"pages": {"links": ["next"]}}, "pages.links"),
        ({"pages": {"over_maximum": "wrapped"}}, "pages.over_maximum"),
        ({"date_offset": {"lastUsedDate": "+01:00"}}, "date_offset.lastUsedDate"),
        ({"pat_creation": {"client_credentials": "allowed"}}, "pat_creation"),
        ({"graphql": {"refusal_status": "always_500"}}, "graphql.refusal_status"),
        ({"content_errors": {"format": "xml"}}, "content_errors"),
        ({"rate_limit": {"requests_per_minute": None, "announce": "ratelimit_headers"}}, "needs"),
        ({"refusal_messages": {"create": {"forbidden": "no"}}}, "operation"),
        ({"refusal_messages": {"create_token": {"banned": "no"}}}, "create_token"),
        ({"shapes": {"hubs_page": {"body": {"keys": {}}}}}, "shapes answer"),
        ({"shapes": {"hub": {"body": {"keys": {"id": {}, "name": {}, "x": {}}}}}}, "sample"),
        ({"shapes": {"hub": {"body": {"keys": {"id": {}}}}}}, "lacks"),
        (
            {
                **SECOND_CHOICE_PARTS["token_type_absent"],
                "shapes": {"token": {"body": {"keys": {"access_token": {}, "token_type": {}}}}},
            },
            "token_type is null",
        ),
    ],
)
def test_newer_choices_it_cannot_serve_are_refused(changes: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named), running_independent_deployment(choices=changes):
        pass


def test_a_token_shape_without_scope_omits_it() -> None:
    shape = copy.deepcopy(SECOND_CHOICES["shapes"]["token"])
    del shape["body"]["keys"]["scope"]
    chosen = {"shapes": {"token": shape}}
    with running_independent_deployment(choices=chosen) as deployment, httpx.Client() as http:
        answer = second_client.SecondClient(deployment.world, http).token_answer()
    assert sorted(answer) == ["access_token", "expires_in", "session_expires_in"]


def test_hubs_pages_carry_the_chosen_links_where_they_apply() -> None:
    every = {"pages": {"links": ["self", "first", "prev", "next", "last"]}}
    with running_independent_deployment(choices=every) as deployment, httpx.Client() as http:
        client = second_client.SecondClient(deployment.world, http)
        bearer = deployment.world["admin_token"]
        relations = [sorted(client.hubs(bearer, page=n, size=1).json()["_links"]) for n in range(3)]
    assert relations == [
        ["first", "last", "next", "self"],
        ["first", "last", "next", "prev", "self"],
        ["first", "last", "prev", "self"],
    ]


# -- the gate judges the documentation only -----------------------------------------------------


def test_the_announced_limit_counts_down_and_is_spent_at_the_refusal() -> None:
    limited = {"rate_limit": {"requests_per_minute": 2, "announce": "ratelimit_headers"}}
    with running_independent_deployment(choices=limited) as deployment, httpx.Client() as http:
        client = second_client.SecondClient(deployment.world, http)
        bearer = deployment.world["member_token"]
        answers = [client.graphql("{ viewer { id } }", bearer) for _ in range(3)]
        anonymous = http.post(deployment.world["graphql_url"], json={"query": "{ viewer { id } }"})
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert [a.headers["RateLimit"] for a in answers] == [
        "limit=2, remaining=1, reset=60",
        "limit=2, remaining=0, reset=60",
        "limit=2, remaining=0, reset=60",
    ]
    assert answers[2].headers["Retry-After"] == "60"
    assert {a.headers["RateLimit-Policy"] for a in answers} == {"2;w=60"}
    # A request with no credential counts against nobody, and still hears the policy.
    assert anonymous.status_code == 401
    assert anonymous.headers["RateLimit"] == "limit=2, remaining=2, reset=60"


def test_refusal_messages_and_hub_dates_follow_their_operation() -> None:
    chosen = {
        "refusal_messages": {"hubs": {"unauthenticated": "sign in to list hubs"}},
        "content_errors": {"format": "problem+json"},
        "date_offset": {"hubs": "+00:00"},
    }
    with running_independent_deployment(choices=chosen) as deployment, httpx.Client() as http:
        client = second_client.SecondClient(deployment.world, http)
        listing = client.hubs(None).json()
        hub = client.hubs(deployment.world["admin_token"]).json()["_embedded"]["hubs"][0]
        one = http.get(hub["_links"]["self"]["href"]).json()
        missing = http.get(
            deployment.world["base_url"] + "/v2/content/nowhere",
            headers={"Authorization": "Bearer " + deployment.world["admin_token"]},
        )
    assert listing["detail"] == "sign in to list hubs"
    assert one["detail"] == INDEPENDENT_CHOICES["refusals"]["unauthenticated"]["message"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", hub["createdDate"])
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"
    assert missing.json()["status"] == 404


def test_the_gate_passes_the_second_deployment_and_leaves_nothing(tmp_path: Path) -> None:
    with running_independent_deployment(choices=SECOND_CHOICES) as deployment:
        end = gate_run(deployment, tmp_path)
        left = token_names(deployment)
    gates = {rule.rule_id: rule for rule in end.rules if rule.level is Level.GATE}
    failed = {i: r.reason for i, r in gates.items() if r.outcome is Outcome.FAILED}
    assert failed == {}
    not_passed = {i: r.reason for i, r in gates.items() if r.outcome is not Outcome.PASSED}
    assert set(not_passed) == set(NOT_CHECKABLE_HERE), not_passed
    assert end.exit_code == 0
    assert end.tallies is not None
    assert end.tallies.tokens_created > 0
    assert end.tallies.tokens_created == end.tallies.tokens_deleted
    assert end.tallies.tokens_leaked == 0
    assert left == STARTING_TOKENS, "the run left a token behind"
    warned = {rule.rule_id for rule in end.rules if rule.outcome is Outcome.WARNING}
    # RFC 6749 5.1 makes token_type required: leaving it out is advised against, no more.
    assert warned == {"TOKEN-LIFETIME", "TOKEN-OAUTH-RESPONSE"}


def test_with_a_control_plane_the_gate_checks_every_rule_and_passes(tmp_path: Path) -> None:
    with running_independent_deployment(choices=SECOND_CHOICES, control=True) as deployment:
        end = gate_run(deployment, tmp_path)
        left = token_names(deployment)
    count = gate_count(end.rules)
    assert count.all_checked
    assert count.failed == 0
    assert end.exit_code == 0
    assert left == STARTING_TOKENS, "the run left a token behind"


@pytest.mark.parametrize("switch", ["sixth_token", "member_creates", "never_last_used"])
def test_a_broken_rule_still_fails_under_the_second_choices(switch: str, tmp_path: Path) -> None:
    # The twin of the gate passing: the refusals now answer 409 and 403, lastUsedDate has
    # microseconds, and a broken rule among them is still caught.
    with running_independent_deployment(switch, choices=SECOND_CHOICES) as deployment:
        end = gate_run(deployment, tmp_path, BROKEN_RULES[switch])
    failed = {rule.rule_id for rule in end.rules if rule.outcome is Outcome.FAILED}
    assert BROKEN_RULES[switch] in failed
    assert end.exit_code == 1


# -- after calibrate learns the shapes and knobs -----------------------------------------------

CALIBRATED = merged_over(SECOND_CHOICES, {"last_used_date": {"update_interval_seconds": 0}})
"""The second deployment with lastUsedDate moving on every use: calibrate sees the interval
without waiting a minute (as tests/calibration calibrates the first one on the command line)."""


def test_the_second_choices_are_a_profile_patgate_loads_as_they_are() -> None:
    from patgate.fake.profile import load_profile

    chosen = merged_over(INDEPENDENT_CHOICES, SECOND_CHOICES)
    document = load_profile(copy.deepcopy(chosen)).as_document()
    for choice in CHOICES:
        for field in FIELD_NAMES[choice]:
            assert _get(document, field) == _get(chosen, field), (choice, field)


@pytest.fixture(scope="module")
def calibrated_profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The profile ``patgate calibrate --allow-writes`` writes of the second deployment."""
    from patgate.cli import main

    folder = tmp_path_factory.mktemp("calibrated")
    with running_independent_deployment(choices=CALIBRATED) as deployment:
        world = str(deployment.write_world(folder / "world.json"))
        flags = ["--world", world, "--ledger", str(folder / "ledger.jsonl"), "--allow-writes"]
        profile = folder / "profile.yaml"
        assert main(["calibrate", *flags, "--out", str(profile)]) == 0
        assert token_names(deployment) == STARTING_TOKENS
    return profile


def test_calibrate_then_compare_is_clean(tmp_path: Path) -> None:
    from patgate.cli import main

    with running_independent_deployment(choices=CALIBRATED) as deployment:
        world = str(deployment.write_world(tmp_path / "world.json"))
        common = ["--world", world, "--ledger", str(tmp_path / "ledger.jsonl"), "--allow-writes"]
        profile = tmp_path / "profile.yaml"
        assert main(["calibrate", *common, "--out", str(profile)]) == 0
        report = tmp_path / "drift.json"
        code = main(["compare", *common, "--profile", str(profile), "--report", f"json:{report}"])
        assert json.loads(report.read_text("utf-8"))["drift"] == []
        assert code == 0
        assert token_names(deployment) == STARTING_TOKENS


@pytest.fixture(scope="module")
def served_calibrated(calibrated_profile: Path) -> Iterator[dict[str, str]]:
    """``patgate serve --profile`` of the calibrated profile, and its target file."""
    world = calibrated_profile.parent / "served.json"
    log = calibrated_profile.parent / "serve.log"
    command = [sys.executable, "-m", "patgate", "serve", "--profile", str(calibrated_profile)]
    with log.open("wb") as output:
        server = subprocess.Popen(
            [*command, "--world", str(world)], stdout=output, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 30
        while not world.exists() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.05)
        assert world.exists(), log.read_text("utf-8")
        yield json.loads(world.read_text("utf-8"))
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize("choice", CHOICES)
def test_the_client_passes_on_the_calibrated_fake(
    choice: str, calibrated_profile: Path, served_calibrated: dict[str, str]
) -> None:
    with patgate.Fake(profile=str(calibrated_profile)) as fake:
        second_client.RELIANCES[choice](fake.world)
    second_client.RELIANCES[choice](served_calibrated)
