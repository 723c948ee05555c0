"""The probes against the embedded fake: they read back the profile a fake was given, see a
broken documented rule as a gate failure, write no secret and leave nothing behind."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import patgate
from patgate.calibration.comparison import compare_results, probe_fake
from patgate.calibration.probes import FIELDS, NOT_PROFILE_FIELDS, ProbeResult, probe_target
from patgate.calibration.profile_document import calibrated_document, render_profile
from patgate.fake.profile import default_profile
from patgate.runner.connection.fake import FakeTarget
from patgate.runner.context import RunOptions
from patgate.runner.custody.ledger import LedgerState
from patgate.runner.session import open_session
from patgate.wire.messages import WireRequest, WireResponse

OTHER_CHOICES: dict[str, Any] = {
    "profile_version": 1,
    "delete_result": {
        "shape": "object",
        "object_type": "TokenDeletion",
        "fields": {"id": "token_id", "deleted": "true"},
    },
    "masked_token": {"visible_characters": 5, "mask_width": 12},
    "refusals": {
        "unauthenticated": {"status": 401, "code": "NO_AUTH", "message": "Sign in first."},
        "forbidden": {"status": 403, "code": "DENIED", "message": "Not allowed."},
        "not_found": {"status": 404, "code": "MISSING", "message": "Nothing there."},
        "token_limit": {"code": "TOO_MANY", "message": "Too many tokens."},
        "invalid_input": {"status": 422, "code": "BAD_INPUT", "message": "Bad input."},
    },
    "client_token": {"expires_in": 900, "token_type": "bearer"},
    "hubs": {"fields": ["id", "name", "status", "createdDate"], "links": ["self"]},
    "pages": {"default_size": 10, "maximum_size": 40},
    "pat_name": {"max_length": 80},
    "listing_order": "created_descending",
    "date_precision": {"lastUsedDate": "seconds"},
}
"""Choices other than the default on every field the probes can see."""


def _get(document: dict[str, Any], dotted: str) -> Any:
    if dotted.startswith("shapes."):
        return document["shapes"][dotted.removeprefix("shapes.")]
    for part in dotted.split("."):
        document = document[part]
    return document


def _expected(chosen: dict[str, Any], name: str) -> Any:
    """What a fake of the profile ``chosen`` answers on ``name`` (``None``: its own words,
    or a shape, which the profile leaves as today's answers)."""
    if name.startswith("shapes."):
        return None
    if name.startswith("refusal_messages."):
        _, operation, kind = name.split(".")
        own = chosen["refusal_messages"].get(operation, {}).get(kind)
        if own is not None or operation == "token":  # OAuth's error_description: its own
            return own
        return chosen["refusals"][kind]["message"]
    return _get(chosen, name)


def _probe(fake: patgate.Fake, *, writes: bool = True) -> tuple[ProbeResult, Any]:
    with open_session(FakeTarget(fake), RunOptions(allow_writes=True)) as session:
        result = probe_target(session, allow_writes=writes)
        tallies = session.finish()
        entries = session.context.ledger.entries()
    assert not tallies.left_behind
    assert all(e.state is not LedgerState.CREATED for e in entries)
    return result, entries


@pytest.fixture
def other_fake() -> Iterator[patgate.Fake]:
    with patgate.Fake(profile=OTHER_CHOICES) as fake:
        yield fake


def test_the_probes_read_back_every_choice_the_fake_was_given(other_fake: patgate.Fake) -> None:
    result, _ = _probe(other_fake)
    chosen = other_fake.deployment.profile.as_document()
    observed = {
        n: f.value
        for n, f in result.observed().items()
        if n not in NOT_PROFILE_FIELDS and _expected(chosen, n) is not None
    }
    mismatched = {
        n: (v, _expected(chosen, n)) for n, v in observed.items() if v != _expected(chosen, n)
    }
    assert mismatched == {}
    default = default_profile().as_document()
    differing = [n for n in observed if _expected(chosen, n) != _expected(default, n)]
    assert len(differing) >= 20, differing


def test_calibrating_a_fake_gives_its_profile_and_compare_then_finds_no_drift(
    other_fake: patgate.Fake,
) -> None:
    target, _ = _probe(other_fake)
    fake = probe_fake(None, frozenset(other_fake.world), allow_writes=True)
    before = compare_results(target, fake)
    assert before.exit_code == 1
    calibration = calibrated_document(target, fake, default_profile().as_document())
    chosen = other_fake.deployment.profile.as_document()
    knobs = [n for n in calibration.adopted if not n.startswith("shapes.")]
    for name in knobs:
        assert _get(calibration.document, name) == _expected(chosen, name), name
    drifted = {next(f for f in FIELDS if d.field.startswith(f)) for d in before.drift}
    # A kind's wording shared by every operation is its own too: never a drift of its own.
    shared = {n for n in knobs if n.startswith("refusals.") and n.endswith(".message")}
    assert drifted == set(calibration.adopted) - shared
    after = compare_results(
        target, probe_fake(calibration.document, frozenset(other_fake.world), allow_writes=True)
    )
    assert after.drift == []
    assert after.exit_code == 0


def test_read_only_probes_send_no_mutation_and_name_what_needs_writes() -> None:
    with patgate.Fake() as fake:
        result, entries = _probe(fake, writes=False)
        graphql = fake.world["graphql_url"]
        sent = [json.loads(e.body)["query"] for e in fake.request_log if e.url == graphql]
    assert entries == []
    assert sent
    assert not any(query.lstrip().startswith("mutation") for query in sent)
    missing = result.not_observed()
    assert "--allow-writes" in missing["listing_order"]
    assert result.findings["delete_result.shape"].value == "boolean"


def _admin_token_ids(fake: patgate.Fake) -> list[str]:
    answer = httpx.post(
        fake.world["graphql_url"],
        json={"query": "{ viewer { personalAccessTokens { id } } }"},
        headers={"Authorization": f"Bearer {fake.world['admin_token']}"},
    )
    return [t["id"] for t in answer.json()["data"]["viewer"]["personalAccessTokens"]]


def test_the_probes_leave_the_admins_tokens_as_they_were() -> None:
    with patgate.Fake() as fake:
        before = _admin_token_ids(fake)
        _probe(fake)
        after = _admin_token_ids(fake)
    assert after == before


def _rewrite(change: Callable[[WireRequest, dict[str, Any]], None]) -> Any:
    def wrap(app: Any) -> Any:
        def handler(request: WireRequest) -> WireResponse | None:
            response = app(request)
            if response is None:
                return response
            kinds = [v for k, v in response.headers if k.lower() == "content-type"]
            if not any("json" in kind for kind in kinds):
                return response
            body = json.loads(response.body or b"null")
            change(request, body)
            return WireResponse(response.status, response.headers, json.dumps(body).encode())

        return handler

    return wrap


def _unmask(request: WireRequest, body: Any) -> None:
    viewer = (body.get("data") or {}).get("viewer") if isinstance(body, dict) else None
    for token in (viewer or {}).get("personalAccessTokens") or ():
        token["token"] = token["token"].replace("*", "A")


def test_an_unmasked_listing_is_a_gate_failure_and_never_a_mask() -> None:
    with patgate.Fake(wrap_app=_rewrite(_unmask)) as fake:
        result, _ = _probe(fake, writes=False)
    assert [b.rule for b in result.breaks] == ["PAT-LIST-MASKED"]
    assert "masked_token.visible_characters" not in result.observed()


def test_the_default_fake_breaks_no_rule_the_probes_see() -> None:
    with patgate.Fake() as fake:
        result, _ = _probe(fake)
    assert result.breaks == []


def test_a_sixth_token_is_a_gate_failure_and_is_deleted() -> None:
    with patgate.Fake(max_tokens_per_user=6) as fake:
        before = _admin_token_ids(fake)
        result, _ = _probe(fake)
        after = _admin_token_ids(fake)
    assert "PAT-CAP" in [b.rule for b in result.breaks]
    assert after == before


def test_a_secret_in_an_answer_never_reaches_the_profile() -> None:
    held: dict[str, str] = {}

    def leak(request: WireRequest, body: Any) -> None:
        for error in body.get("errors") or () if isinstance(body, dict) else ():
            error["message"] = f"refused; your admin token is {held['admin']}"

    with patgate.Fake(wrap_app=_rewrite(leak)) as fake:
        held["admin"] = admin = fake.world["admin_token"]
        target, _ = _probe(fake)
        world = frozenset(fake.world)
    messages = [
        f.value
        for n, f in target.observed().items()
        if n.startswith("refusal_messages.") and not n.startswith("refusal_messages.token.")
    ]
    assert messages
    assert all("refused; your admin token is" in m for m in messages)
    assert not any(admin in m for m in messages)
    text = render_profile(
        calibrated_document(
            target, probe_fake(None, world, allow_writes=True), default_profile().as_document()
        ),
        target="fake",
        allow_writes=True,
    )
    assert "refused; your admin token is" in text
    assert admin not in text


FREE_FORM = ("shapes.", "refusal_messages.")
"""Sections whose keys the profile names itself (answers, operations): empty by default."""


def test_every_probed_field_is_a_profile_field_or_named_as_not_one() -> None:
    document = default_profile().as_document()
    for name in FIELDS:
        if name in NOT_PROFILE_FIELDS:
            continue
        if name.startswith(FREE_FORM):
            assert document[name.split(".")[0]] == {}
            continue
        _get(document, name)  # raises KeyError for a field the profile does not have


def test_every_profile_field_is_probed_or_named_as_never_probed() -> None:
    from patgate.calibration.profile_document import NEVER_PROBED

    def paths(node: Any, at: str = "") -> list[str]:
        if isinstance(node, dict) and node and at != "delete_result.fields":
            return [p for k, v in node.items() for p in paths(v, f"{at}.{k}" if at else k)]
        return [at]

    document = default_profile().as_document()
    left = [p for p in paths(document) if p not in FIELDS and p not in NEVER_PROBED]
    # The free-form sections are probed by key (shapes.token, refusal_messages.hub....);
    # accepted is the user's own list of differences, never a deployment's answer.
    covered = [p for p in left if any(f.startswith(p + ".") for f in FIELDS)]
    assert [p for p in left if p not in covered] == ["profile_version", "accepted"]
    assert set(covered) == {"shapes", "refusal_messages"}


def _at_the_cap_once(app: Any) -> Any:
    """Answer the first create of a long name (the name probe's) with the token-limit
    refusal, as if someone had filled the admin's tokens at that moment, and from then on
    show the admin's listings with 5 tokens (someone else's among them) where fewer are held;
    everything else as the fake answers."""
    state: dict[str, Any] = {"refused": False}

    def handler(request: WireRequest) -> WireResponse | None:
        document = json.loads(request.body or b"{}") if request.method == "POST" else {}
        query = document.get("query", "") if isinstance(document, dict) else ""
        long_name = re.search(r'name: "[^"]{200,}"', query)
        if "createPersonalAccessToken" in query and long_name and not state["refused"]:
            state["refused"] = True
            state["admin"] = request.header("authorization")
            refusal = {
                "data": {"createPersonalAccessToken": None},
                "errors": [{"message": "at most 5", "extensions": {"code": "LIMIT_REACHED"}}],
            }
            headers = [("content-type", "application/json")]
            return WireResponse(200, headers, json.dumps(refusal).encode())
        response = app(request)
        if (
            response is None
            or "personalAccessTokens" not in query
            or not state["refused"]
            or request.header("authorization") != state["admin"]
        ):
            return response
        body = json.loads(response.body or b"null")
        tokens = body["data"]["viewer"]["personalAccessTokens"]
        for index in range(5 - len(tokens)):
            tokens.append({**tokens[0], "id": f"someone-elses-{index}", "name": f"other {index}"})
        return WireResponse(response.status, response.headers, json.dumps(body).encode())

    return handler


def test_a_long_name_refused_while_the_admin_is_at_the_cap_is_no_name_limit() -> None:
    # The refusal was about the cap, not the name: the limit is not read from it.
    with patgate.Fake(wrap_app=_at_the_cap_once) as fake:
        result, _ = _probe(fake)
    finding = result.findings["pat_name.max_length"]
    assert not finding.observed
    assert "refused while the admin held 5 tokens (the refusal may be the cap's)" in finding.reason


def test_compare_right_after_calibrating_the_default_fake_is_quiet() -> None:
    with patgate.Fake() as fake:
        target, _ = _probe(fake)
        world = frozenset(fake.world)
    default = probe_fake(None, world, allow_writes=True)
    calibration = calibrated_document(target, default, default_profile().as_document())
    assert calibration.adopted == {}
    again = probe_fake(calibration.document, world, allow_writes=True)
    comparison = compare_results(target, again)
    assert (comparison.drift, comparison.exit_code) == ([], 0)


def test_a_fake_refusing_client_credential_creates_drifts_on_that_field_alone() -> None:
    refusing = {"profile_version": 1, "pat_creation": {"client_credentials": "refused"}}
    with patgate.Fake(profile=refusing) as fake:
        target, _ = _probe(fake)
        world = frozenset(fake.world)
    comparison = compare_results(target, probe_fake(None, world, allow_writes=True))
    assert [(d.field, d.fake, d.target) for d in comparison.drift] == [
        ("pat_creation.client_credentials", "allowed", "refused")
    ]


def test_an_extra_field_is_written_with_a_redacted_sample_and_nothing_else_is() -> None:
    held: dict[str, str] = {}

    def extra(request: WireRequest, body: Any) -> None:
        if request.url.endswith("/oauth/token") and isinstance(body, dict) and "expires_in" in body:
            body["tenant"] = "eu-1"
            body["owner"] = f"admin {held['admin']}"

    with patgate.Fake(wrap_app=_rewrite(extra)) as fake:
        held["admin"] = admin = fake.world["admin_token"]
        target, _ = _probe(fake)
        world = frozenset(fake.world)
    default = probe_fake(None, world, allow_writes=True)
    calibration = calibrated_document(target, default, default_profile().as_document())
    keys = calibration.document["shapes"]["token"]["body"]["keys"]
    assert keys["tenant"] == {"type": "string", "form": "text", "sample": "eu-1"}
    assert admin not in keys["owner"]["sample"]
    # A key the fake serves itself carries no sample: its value is never recorded.
    assert "sample" not in keys["access_token"]
    assert "sample" not in keys["expires_in"]
    text = render_profile(calibration, target="fake", allow_writes=True)
    assert admin not in text
    with patgate.Fake(profile=calibration.document) as calibrated:
        answer = httpx.post(
            calibrated.world["auth_url"] + "/oauth/token",
            data={
                "grant_type": "client_credentials",
                "client_id": calibrated.world["client_id"],
                "client_secret": calibrated.world["client_secret"],
            },
        ).json()
    assert answer["tenant"] == "eu-1"


def test_the_probes_leave_the_runs_documents_as_they_were(other_fake: patgate.Fake) -> None:
    # The delete result is an object here: the probes learn it and delete in documents of
    # their own; the session's documents (every later step's) are not changed from inside.
    with open_session(FakeTarget(other_fake), RunOptions(allow_writes=True)) as session:
        documents = session.context.documents
        before = (documents.delete_selection, dict(documents.overrides))
        result = probe_target(session, allow_writes=True)
        after = (documents.delete_selection, dict(documents.overrides))
    assert result.findings["delete_result.fields"].value == {"id": "token_id", "deleted": "true"}
    assert after == before


def test_a_token_answer_without_token_type_is_written_as_null() -> None:
    absent = {"profile_version": 1, "client_token": {"token_type": None}}
    with patgate.Fake(profile=absent) as fake:
        target, _ = _probe(fake)
        world = frozenset(fake.world)
    default = probe_fake(None, world, allow_writes=True)
    calibration = calibrated_document(target, default, default_profile().as_document())
    assert calibration.document["client_token"]["token_type"] is None
    assert "\n  token_type: null\n" in render_profile(calibration, target="fake", allow_writes=True)
