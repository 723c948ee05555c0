"""A listing is read entry by entry: one malformed entry beside the run's own tokens is a
failed step naming its index and field, while the entries that decode still prove the run's
tokens, which are deleted; a malformed entry is never deleted and never proof."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from patgate.harness import Fake
from patgate.runner import LiveTarget, TargetConfig
from patgate.runner.results.events import RunFinished

from .support import finished, run_events, scenarios

Handler = Callable[[httpx.Request], httpx.Response]
Change = Callable[[list[Any]], None]
"""Changes the list of a listing's entries in place."""

ENTRIES = "data.viewer.personalAccessTokens"
CREATE_ONE = """\
id: create-one
title: Creates one token and keeps it
rules: [PAT-CREATE-FIELDS]
steps:
  - graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    expect:
      - ok: true
"""


def _is_listing(request: httpx.Request) -> bool:
    if not request.url.path.endswith("/graphql"):
        return False
    query = json.loads(request.content).get("query", "")
    return "personalAccessTokens" in query and "PersonalAccessToken(" not in query


def _listings_changed(fake: Fake, change: Change, deletes: list[str]) -> LiveTarget:
    """The fake as a live target whose every listing passes through ``change``; the ids of
    the deletes sent are noted in ``deletes``."""
    inner = fake.httpx_transport()

    def handle(request: httpx.Request) -> httpx.Response:
        if b"deletePersonalAccessToken" in request.content:
            deletes.append(json.loads(request.content).get("variables", {}).get("id", "?"))
        answer = inner.handle_request(request)
        if not _is_listing(request):
            return answer
        body = json.loads(answer.read())
        change(body["data"]["viewer"]["personalAccessTokens"])
        return httpx.Response(answer.status_code, headers=answer.headers, json=body)

    return LiveTarget(TargetConfig(fake.world), transport=httpx.MockTransport(handle))


def _admin_tokens(fake: Fake) -> dict[str, str]:
    admin = fake.default_world.admin_id
    return {t.id: t.name for t in fake.deployment.tokens.values() if t.user_id == admin}


def _insert(entry: Any) -> Change:
    """Put ``entry`` second in every listing (after the admin's own token)."""
    return lambda entries: entries.insert(1, entry)


MALFORMED = [
    ({"id": "odd-1", "name": ["patgate-x"]}, f"{ENTRIES}[1].name: expected text, got a list of 1"),
    ({"id": 12, "name": "odd"}, f"{ENTRIES}[1].id: expected a non-empty text, got the number 12"),
    ({"name": "odd"}, f"{ENTRIES}[1].id: missing"),
    (None, f"{ENTRIES}[1]: expected an object, got null"),
    ("odd-1", f"{ENTRIES}[1]: expected an object, got the text 'odd-1'"),
]


def _run(
    fake: Fake, change: Change, deletes: list[str], **options: Any
) -> tuple[list[str], RunFinished]:
    events, end = run_events(
        scenarios(CREATE_ONE),
        _listings_changed(fake, change, deletes),
        allow_writes=True,
        **options,
    )
    return [failure.message for failure in finished(events)["create-one"].failures], end


@pytest.mark.parametrize(
    ("entry", "problem"), MALFORMED, ids=["list-name", "number-id", "no-id", "null", "text"]
)
def test_a_malformed_entry_is_a_failed_step_and_the_runs_token_is_still_deleted(
    entry: Any, problem: str
) -> None:
    fake = Fake()
    before = _admin_tokens(fake)
    deletes: list[str] = []
    messages, end = _run(fake, _insert(entry), deletes)
    assert len(messages) == 1
    assert problem in messages[0]
    assert "never deleted nor taken as proof" in messages[0]
    assert end.tallies is not None
    assert (end.tallies.tokens_created, end.tallies.tokens_deleted) == (1, 1)
    assert end.tallies.tokens_leaked == 0
    assert end.tallies.wrong_ids == 0, "the create's id was proved by the entries that decode"
    assert _admin_tokens(fake) == before
    assert len(deletes) == 1
    assert end.exit_code == 1


def _spoil_runs_own(entries: list[Any]) -> None:
    """The run's own tokens listed with a name that is a list."""
    for entry in entries:
        if entry["name"].startswith("patgate-"):
            entry["name"] = [entry["name"]]


def test_the_runs_own_token_in_a_malformed_entry_is_never_proof_and_never_deleted() -> None:
    fake = Fake()
    before = _admin_tokens(fake)
    deletes: list[str] = []
    messages, end = _run(fake, _spoil_runs_own, deletes)
    made = {i: n for i, n in _admin_tokens(fake).items() if i not in before}
    assert deletes == []
    assert len(made) == 1, "the token stays: only an entry that decodes is deleted"
    (message,) = messages
    assert f"{ENTRIES}[1].name: expected text, got a list of 1" in message
    assert "a wrong id: the create answered an id its creator does not list" in message
    assert end.tallies is not None
    assert end.tallies.tokens_deleted == 0
    assert end.tallies.wrong_ids == 1, "the id the create answered was not proved"


def _spoil_runs_own_once_listed(seen: dict[str, int]) -> Change:
    """The run's own tokens well formed the first time they are listed (the create's
    proof), then with a list for a name (the listings the sweeps read)."""

    def change(entries: list[Any]) -> None:
        for entry in entries:
            name = entry["name"]
            if name.startswith("patgate-"):
                seen[name] = seen.get(name, 0) + 1
                if seen[name] > 1:
                    entry["name"] = [name]

    return change


def test_a_token_listed_only_in_a_malformed_entry_is_not_called_gone(tmp_path: Path) -> None:
    fake = Fake()
    before = _admin_tokens(fake)
    deletes: list[str] = []
    ledger = tmp_path / "ledger.jsonl"
    messages, end = _run(fake, _spoil_runs_own_once_listed({}), deletes, ledger_path=ledger)
    events = [json.loads(line)["event"] for line in ledger.read_text().splitlines()]
    assert events == ["pending", "created"], "never written down as deleted, even for a while"
    assert messages == [], "the create was proved by the listing after it"
    left = {i for i in _admin_tokens(fake) if i not in before}
    assert deletes == []
    assert len(left) == 1
    assert end.tallies is not None
    assert end.tallies.tokens_leaked == 1, "the ledger does not call it deleted"
    assert end.tallies.tokens_deleted == 0


def _renamed_after_the_create(fake: Fake) -> Change:
    """The admin's own token listed with a list for a name before the create, then, after
    it, under the run's new name in place of the run's real token (which is not listed)."""
    own = next(iter(_admin_tokens(fake)))

    def change(entries: list[Any]) -> None:
        theirs = next(e for e in entries if e["id"] == own)
        ours = [e for e in entries if e["name"].startswith("patgate-")]
        if not ours:
            theirs["name"] = [theirs["name"]]
            return
        theirs["name"] = ours[0]["name"]
        entries.remove(ours[0])

    return change


def test_an_entry_malformed_before_the_create_is_never_proof_after_it() -> None:
    fake = Fake()
    before = _admin_tokens(fake)
    deletes: list[str] = []
    messages, end = _run(fake, _renamed_after_the_create(fake), deletes)
    assert set(before) <= set(_admin_tokens(fake)), "the admin's own token was not deleted"
    assert not set(before) & set(deletes)
    (message,) = messages
    assert "a wrong id" in message
    assert end.tallies is not None
    assert end.tallies.tokens_deleted == 0
