"""The probes read a listing entry by entry: a malformed entry beside the admin's tokens is a
gate failure naming its index and field, the probes still see what the entries that decode
show, and every token a probe made is deleted."""

from __future__ import annotations

import json
from typing import Any

import pytest

import patgate
from patgate.calibration.probes import ProbeResult, probe_target
from patgate.runner.connection.fake import FakeTarget
from patgate.runner.context import RunOptions
from patgate.runner.custody.ledger import LedgerState
from patgate.runner.session import open_session
from patgate.wire.messages import WireRequest, WireResponse

ENTRIES = "data.viewer.personalAccessTokens"


def _with_entry(entry: Any) -> Any:
    """A fake app whose every listing holds ``entry`` second."""

    def wrap(app: Any) -> Any:
        def handler(request: WireRequest) -> WireResponse | None:
            response = app(request)
            query = request.body.decode("utf-8", "replace")
            if (
                response is None
                or "personalAccessTokens" not in query
                or "PersonalAccessToken(" in query
            ):
                return response
            body = json.loads(response.body)
            viewer = (body.get("data") or {}).get("viewer")
            if not isinstance(viewer, dict) or "personalAccessTokens" not in viewer:
                return response
            viewer["personalAccessTokens"].insert(1, entry)
            return WireResponse(response.status, response.headers, json.dumps(body).encode())

        return handler

    return wrap


def _admin_token_ids(fake: patgate.Fake) -> set[str]:
    admin = fake.default_world.admin_id
    return {t.id for t in fake.deployment.tokens.values() if t.user_id == admin}


def _probe(fake: patgate.Fake) -> ProbeResult:
    with open_session(FakeTarget(fake), RunOptions(allow_writes=True)) as session:
        result = probe_target(session, allow_writes=True)
        tallies = session.finish()
        entries = session.context.ledger.entries()
    assert not tallies.left_behind, "the ledger shows nothing left"
    assert tallies.tokens_created >= 3, "the lifecycle's creates were proved"
    assert tallies.tokens_deleted == tallies.tokens_created
    assert all(e.state is not LedgerState.CREATED for e in entries)
    return result


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"id": "odd-1", "name": ["patgate-x"]}, f"{ENTRIES}[1].name: expected text, got a list"),
        ({"id": 12, "name": "odd"}, f"{ENTRIES}[1].id: expected a non-empty text, got the number"),
        ({"name": "odd"}, f"{ENTRIES}[1].id: missing"),
        (None, f"{ENTRIES}[1]: expected an object, got null"),
        ("odd-1", f"{ENTRIES}[1]: expected an object, got the text 'odd-1'"),
    ],
    ids=["list-name", "number-id", "no-id", "null", "text"],
)
def test_a_malformed_entry_is_a_gate_failure_and_the_probes_tokens_are_deleted(
    entry: Any, problem: str
) -> None:
    with patgate.Fake(wrap_app=_with_entry(entry)) as fake:
        before = _admin_token_ids(fake)
        result = _probe(fake)
        after = _admin_token_ids(fake)
    assert after == before
    breaks = [(b.rule, b.what) for b in result.breaks]
    assert breaks
    assert all(rule == "PAT-LIST-MASKED" for rule, _ in breaks), breaks
    assert all(problem in what for _, what in breaks), breaks
    observed = result.observed()
    # The entries that decode are still read: the lifecycle saw its tokens listed.
    assert observed["listing_order"].value == "created_ascending"
    assert "delete_result.fields" in observed
    assert "refusals.token_limit.code" in observed, "no sixth token was counted wrongly"
