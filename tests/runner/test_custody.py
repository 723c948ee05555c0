"""Creates and deletes go through the ledger: written first, never resent blindly, and a
delete of anything the run did not create is refused before it is sent."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from patgate.errors import ForeignDeleteRefused, ScenarioError, WrongIdAnswered
from patgate.fake.deployment import Deployment
from patgate.fake.model import PatRecord, Principal
from patgate.harness import Fake
from patgate.runner import FakeTarget, LiveTarget, RunOptions, TargetConfig
from patgate.runner.context import RunContext
from patgate.runner.results.events import Outcome

from .support import FOREIGN_DELETE, builtin, finished, live, run_events, scenarios

Handler = Callable[[httpx.Request], httpx.Response]


def _operation(request: httpx.Request) -> str:
    """``create``, ``delete``, ``viewer`` or ``other`` for a GraphQL request."""
    if not request.url.path.endswith("/graphql"):
        return "other"
    query = json.loads(request.content).get("query", "")
    for word, name in (
        ("createPersonalAccessToken", "create"),
        ("deletePersonalAccessToken", "delete"),
        ("personalAccessTokens", "viewer"),
    ):
        if word in query:
            return name
    return "other"


def _through(fake: Fake, step: Callable[[httpx.Request, Handler], httpx.Response]) -> LiveTarget:
    """The fake as a live target, every request passing through ``step``."""
    inner = fake.httpx_transport()
    transport = httpx.MockTransport(lambda request: step(request, inner.handle_request))
    return LiveTarget(TargetConfig(fake.world), transport=transport)


def _admin_token_ids(fake: Fake) -> set[str]:
    admin = fake.default_world.admin_id
    return {t.id for t in fake.deployment.tokens.values() if t.user_id == admin}


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


def test_a_create_is_in_the_ledger_file_before_it_is_sent(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.jsonl"
    seen: list[dict[str, str]] = []

    def check(request: httpx.Request, inner: Handler) -> httpx.Response:
        if _operation(request) == "create":
            seen.extend(json.loads(line) for line in ledger.read_text().splitlines())
        return inner(request)

    fake = Fake()
    before = _admin_token_ids(fake)
    _, end = run_events(
        scenarios(CREATE_ONE), _through(fake, check), allow_writes=True, ledger_path=ledger
    )
    assert [(e["event"], e["as"]) for e in seen] == [("pending", "admin_token")]
    assert re.fullmatch(rf"patgate-{end.run_id}-\d+", seen[0]["name"])
    events = [json.loads(line)["event"] for line in ledger.read_text().splitlines()]
    assert events == ["pending", "created", "deleted"]
    assert (end.tallies.tokens_created, end.tallies.tokens_deleted) == (1, 1)
    assert _admin_token_ids(fake) == before


def test_a_delete_of_an_id_not_in_the_ledger_is_refused_and_never_sent() -> None:
    sent: list[str] = []

    def count(request: httpx.Request, inner: Handler) -> httpx.Response:
        sent.append(_operation(request))
        return inner(request)

    fake = Fake()
    before = _admin_token_ids(fake)
    events, end = run_events(scenarios(FOREIGN_DELETE), _through(fake, count), allow_writes=True)
    (failure,) = finished(events)["delete-the-admins-token"].failures
    assert failure.step == "delete it"
    assert "this run's ledger does not hold it" in failure.message
    assert "delete" not in sent
    assert _admin_token_ids(fake) == before
    assert end.tallies.deletes_refused == 1
    assert end.exit_code == 1


def test_the_embedded_fake_refuses_foreign_deletes_too() -> None:
    fake = Fake()
    before = _admin_token_ids(fake)
    _, end = run_events(scenarios(FOREIGN_DELETE), FakeTarget(fake))
    assert end.tallies.deletes_refused == 1
    assert _admin_token_ids(fake) == before


def test_a_refused_delete_in_a_cleanup_is_reported() -> None:
    text = FOREIGN_DELETE.replace("  - name: delete it\n", "cleanup:\n  - name: delete it\n")
    fake = Fake()
    events, end = run_events(scenarios(text), live(fake), allow_writes=True)
    (failure,) = finished(events)["delete-the-admins-token"].failures
    assert "refused to delete" in failure.message
    assert end.tallies.deletes_refused == 1
    assert len(fake.deployment.tokens) == 4


def test_a_create_must_carry_a_name_of_the_run() -> None:
    # An authoring mistake: refused when the scenario loads, before anything is sent.
    text = CREATE_ONE.replace('"${new_name}"', "my-token")
    with pytest.raises(ScenarioError, match=r"name starts with \$\{new_name\}.*'my-token'"):
        scenarios(text)


def test_a_create_answered_429_is_looked_for_before_it_is_sent_again() -> None:
    sent: list[str] = []

    def busy_once(request: httpx.Request, inner: Handler) -> httpx.Response:
        operation = _operation(request)
        sent.append(operation)
        if operation == "create" and sent.count("create") == 1:
            return httpx.Response(429, headers={"Retry-After": "0"})
        return inner(request)

    fake = Fake()
    before = _admin_token_ids(fake)
    events, end = run_events(scenarios(CREATE_ONE), _through(fake, busy_once), allow_writes=True)
    assert finished(events)["create-one"].outcome is Outcome.PASSED
    first, second = (i for i, op in enumerate(sent) if op == "create")
    assert "viewer" in sent[first + 1 : second], "the listing comes between the two sends"
    assert (end.tallies.tokens_created, end.tallies.tokens_leaked) == (1, 0)
    assert end.tallies.retries == 1
    assert _admin_token_ids(fake) == before


def test_a_create_whose_answer_is_lost_is_found_by_listing_and_deleted() -> None:
    sent: list[str] = []

    def lose_the_answer(request: httpx.Request, inner: Handler) -> httpx.Response:
        sent.append(_operation(request))
        response = inner(request)
        if sent[-1] == "create":
            raise httpx.ReadTimeout("timed out", request=request)
        return response

    fake = Fake()
    before = _admin_token_ids(fake)
    events, end = run_events(
        scenarios(CREATE_ONE), _through(fake, lose_the_answer), allow_writes=True
    )
    (failure,) = finished(events)["create-one"].failures
    assert "ReadTimeout" in failure.message
    assert "a listing shows it was created" in failure.message
    assert sent.count("create") == 1, "a create is never resent blindly"
    assert (end.tallies.tokens_created, end.tallies.tokens_deleted) == (1, 1)
    assert end.tallies.tokens_leaked == 0
    assert _admin_token_ids(fake) == before


def test_a_lost_create_that_never_happened_is_settled_by_the_last_listing() -> None:
    def never_arrives(request: httpx.Request, inner: Handler) -> httpx.Response:
        if _operation(request) == "create":
            raise httpx.ReadTimeout("timed out", request=request)
        return inner(request)

    target = _through(Fake(), never_arrives)
    events, end = run_events(scenarios(CREATE_ONE), target, allow_writes=True, read_timeout=0.01)
    (failure,) = finished(events)["create-one"].failures
    assert "no token of that name is listed yet" in failure.message
    assert end.tallies.tokens_created == end.tallies.tokens_leaked == 0
    assert end.exit_code == 1


class _DeleteIsANoOp(Deployment):
    def delete_token(self, principal: Principal, token_id: str) -> PatRecord:
        return self.tokens[token_id]


def test_a_token_still_listed_after_its_delete_is_counted_as_leaked() -> None:
    fake = Fake(deployment=_DeleteIsANoOp())
    chosen = [s for s in builtin() if s.id == "pat-create"]
    _, end = run_events(chosen, live(fake), allow_writes=True)
    assert end.tallies.tokens_created == 2
    assert end.tallies.tokens_leaked == 2
    assert end.exit_code == 1


def _hold(fake: Fake, count: int) -> set[str]:
    """Give the admin ``count`` tokens in all (the world gives one); their ids."""
    world = fake.default_world
    for index in range(count - 1):
        fake.request_token_via_ui(world.admin_id, f"the admin's own {index}")
    return _admin_token_ids(fake)


def test_the_cap_probe_is_skipped_when_the_user_holds_5_tokens() -> None:
    fake = Fake()
    before = _hold(fake, 5)
    cap = [s for s in builtin() if s.id == "pat-cap"]
    events, end = run_events(cap, live(fake), allow_writes=True)
    result = finished(events)["pat-cap"]
    assert result.outcome is Outcome.NOT_CHECKED
    assert (
        result.reason
        == "the admin already holds 5 tokens, and patgate deletes only what it created"
    )
    assert _admin_token_ids(fake) == before
    assert end.tallies.tokens_created == 0


def test_a_writing_scenario_without_room_under_the_cap_is_skipped_not_failed() -> None:
    fake = Fake()
    before = _hold(fake, 4)
    events, end = run_events(builtin(), live(fake), allow_writes=True)
    results = finished(events)
    # pat-create makes two tokens: no room for them at 4. The others make one at a time.
    assert results["pat-create"].outcome is Outcome.NOT_CHECKED
    assert results["pat-create"].reason.startswith(
        "the admin holds too many tokens for 2 more under the cap of 5"
    )
    assert results["pat-delete"].outcome is Outcome.PASSED
    assert end.exit_code == 0
    assert _admin_token_ids(fake) == before


@pytest.mark.parametrize("held", [1, 3, 4])
def test_the_cap_probe_creates_up_to_the_cap_and_leaves_the_users_tokens(held: int) -> None:
    fake = Fake()
    before = _hold(fake, held)
    cap = [s for s in builtin() if s.id == "pat-cap"]
    events, end = run_events(cap, live(fake), allow_writes=True)
    assert finished(events)["pat-cap"].outcome is Outcome.PASSED
    assert end.tallies.tokens_created == (5 - held) + 1  # and one more after a delete
    assert end.tallies.tokens_deleted == end.tallies.tokens_created
    assert _admin_token_ids(fake) == before


def test_production_refuses_bulk_writes_unless_the_scenario_is_named() -> None:
    fake = Fake()
    target = LiveTarget(TargetConfig(fake.world, production=True), transport=fake.httpx_transport())
    chosen = [s for s in builtin() if s.id in ("pat-cap", "pat-create")]
    events, _ = run_events(chosen, target, allow_writes=True)
    results = finished(events)
    assert results["pat-cap"].reason == (
        "writes in bulk, which a production target refuses unless the scenario is named: "
        "--scenario pat-cap"
    )
    assert results["pat-create"].outcome is Outcome.PASSED
    named, _ = run_events(chosen[:1], target, allow_writes=True, explicit=frozenset({"pat-cap"}))
    assert finished(named)["pat-cap"].outcome is Outcome.PASSED
    without, _ = run_events(chosen[:1], target, explicit=frozenset({"pat-cap"}))
    assert (
        finished(without)["pat-cap"].reason == "writes to the deployment; run with --allow-writes"
    )


RAW_MUTATION = """\
id: raw-create
title: Creates a token with its own document
rules: [PAT-CREATE-FIELDS]
steps:
  - graphql:
      query: >-
        mutation { createPersonalAccessToken(input: {name: "x", organizationId: "y"}) { id } }
    bearer: ${admin_token}
    expect:
      - status: 200
"""


def test_a_write_the_ledger_cannot_track_runs_only_against_the_fake() -> None:
    (scenario,) = scenarios(RAW_MUTATION)
    assert scenario.untracked_writes
    events, _ = run_events([scenario], live(Fake()), allow_writes=True)
    assert finished(events)["raw-create"].reason.startswith(
        "cannot be checked on this target: sends a write the ledger cannot track"
    )
    events, _ = run_events([scenario], FakeTarget())
    assert finished(events)["raw-create"].outcome is Outcome.PASSED


def test_a_token_made_through_the_management_ui_path_is_in_the_ledger_too() -> None:
    fake = Fake()
    approval = [s for s in builtin() if s.id == "pat-approval"]
    _, end = run_events(approval, FakeTarget(fake))
    assert (end.tallies.tokens_created, end.tallies.tokens_deleted) == (1, 1)
    assert len(fake.deployment.tokens) == 4


def _answering_id(choose: Callable[[Fake], str]) -> Callable[[Fake], LiveTarget]:
    """A live target whose every create answer names the id ``choose`` gives (the token is
    made all the same)."""

    def target(fake: Fake) -> LiveTarget:
        def step(request: httpx.Request, send: Handler) -> httpx.Response:
            response = send(request)
            if _operation(request) != "create":
                return response
            response.read()
            body = response.json()
            created = (body.get("data") or {}).get("createPersonalAccessToken")
            if isinstance(created, dict):
                created["id"] = choose(fake)
            return httpx.Response(response.status_code, headers=response.headers, json=body)

        return _through(fake, step)

    return target


def _the_admins_own_token(fake: Fake) -> str:
    return min(_admin_token_ids(fake) - _run_token_ids(fake))


def _run_token_ids(fake: Fake) -> set[str]:
    return {t.id for t in fake.deployment.tokens.values() if t.name.startswith("patgate-")}


WRITE_THEN_DELETE = """\
id: create-then-delete
title: Creates a token, then deletes the id the create answered
rules: [PAT-DELETE]
steps:
  - graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    capture:
      made: data.createPersonalAccessToken.id
  - graphql: delete_token
    args: {id: "${made}"}
    bearer: ${admin_token}
    expect:
      - deleted: true
cleanup:
  - graphql: delete_token
    args: {id: "${made}"}
    bearer: ${admin_token}
"""


def test_a_create_answering_a_foreign_id_never_makes_the_run_delete_it() -> None:
    """HIGH: the answer names a token that existed before the create (the admin's own). The
    run never deletes it, the token it really made is found by name and deleted, and the
    tally counts the wrong id."""
    fake = Fake()
    before = set(fake.deployment.tokens)
    foreign = _the_admins_own_token(fake)
    target = _answering_id(lambda f: foreign)(fake)
    events, end = run_events(scenarios(WRITE_THEN_DELETE), target, allow_writes=True)
    assert before <= set(fake.deployment.tokens), "no token that existed was deleted"
    assert _run_token_ids(fake) == set(), "the token the run made was deleted"
    assert end.tallies is not None
    assert end.tallies.wrong_ids == 1
    assert end.tallies.tokens_created == end.tallies.tokens_deleted == 1
    assert end.exit_code == 1
    (failure,) = finished(events)["create-then-delete"].failures
    assert "a token that existed before the create" in failure.message
    assert repr(foreign) in failure.message


def test_a_delete_of_the_wrong_id_a_create_answered_is_refused_and_never_sent() -> None:
    fake = Fake()
    foreign = _the_admins_own_token(fake)
    target = _answering_id(lambda f: foreign)(fake)
    context = RunContext(target, RunOptions(allow_writes=True))
    custodian = context.custodian
    name = context.new_name()
    query, variables = context.documents.create_token(name, fake.world["organization_id"])
    admin = fake.world["admin_token"]
    with pytest.raises(WrongIdAnswered):
        custodian.create(name, lambda: context.graphql(query, variables, admin), bearer=admin)
    sent: list[str] = []

    def send(query: str, variables: Any) -> Any:
        sent.append(query)
        return context.graphql(query, variables, admin)

    with pytest.raises(ForeignDeleteRefused, match="no listing showed it"):
        custodian.delete(foreign, send, cleanup=False)
    assert sent == []
    custodian.finish()
    assert foreign in fake.deployment.tokens
    assert _run_token_ids(fake) == set()
    context.close()


def test_a_create_answering_an_unknown_id_leaves_no_token_behind_in_silence() -> None:
    """MEDIUM: the answer names an id the deployment does not hold; the real token is found
    by the run's name and deleted, and the summary says there was a wrong id."""
    fake = Fake()
    target = _answering_id(lambda f: "no-such-token")(fake)
    events, end = run_events(scenarios(WRITE_THEN_DELETE), target, allow_writes=True)
    assert _run_token_ids(fake) == set()
    assert end.tallies is not None
    assert end.tallies.wrong_ids == 1
    assert end.tallies.tokens_leaked == 0
    assert end.exit_code == 1
    (failure,) = finished(events)["create-then-delete"].failures
    assert "an id its creator does not list" in failure.message


class _AdminsDeleteAnyToken(Deployment):
    """A deployment where an organization admin may delete any member's token by its id."""

    def delete_token(self, principal: Principal, token_id: str) -> PatRecord:
        record = self.tokens.get(token_id)
        if record is not None and record.user_id != principal.user_id:
            self.forget_token(record)
            return record
        return super().delete_token(principal, token_id)


def test_cleanup_never_deletes_an_id_its_creator_does_not_list() -> None:
    """A ledger entry whose id names another user's token (an old ledger, an adopted id):
    its creator's listing lacks it, so no delete is sent, even where an admin could delete
    that token by its id."""
    fake = Fake(deployment=_AdminsDeleteAnyToken())
    member = fake.deployment.authenticate(fake.world["member_token"])
    theirs = {t.id for t in fake.deployment.list_tokens(member)}
    context = RunContext(
        LiveTarget(TargetConfig(fake.world), transport=fake.httpx_transport()),
        RunOptions(allow_writes=True),
    )
    ledger = context.ledger
    name = ledger.next_name()
    ledger.intend(name, "admin_token")
    ledger.confirm(name, min(theirs))
    context.custodian.finish()
    assert theirs <= set(fake.deployment.tokens), "the member's token is still there"
    assert ledger.counts()["leaked"] == 0
    context.close()


@pytest.mark.parametrize("own", [False, True], ids=["foreign-id", "its-own-token"])
def test_a_generated_create_is_deleted_only_when_its_bearer_lists_the_id(own: bool) -> None:
    """The fuzzer's generated creates: the id their answer names is deleted only once the
    bearer's listing shows it under the answered name; someone else's id never is."""
    import requests

    from patgate.fuzz.lifecycle import delete_created
    from patgate.fuzz.recorder import Recorder
    from patgate.fuzz.report import FuzzReport

    with Fake() as fake:
        target = LiveTarget(TargetConfig(fake.world), transport=fake.httpx_transport())
        context = RunContext(target, RunOptions(allow_writes=True))
        if own:
            made = fake.request_token_via_ui(fake.default_world.admin_id, "gen")
            token_id, name = made.id, "gen"
        else:
            token_id, name = _the_admins_own_token(fake), "gen"
        body = {"data": {"createPersonalAccessToken": {"id": token_id, "name": name}}}
        report = FuzzReport(target="t", seed=0, max_examples=1)
        recorder = Recorder(requests.Session(), report, context.redactor, timeout=(2, 5))
        headers = {"Authorization": f"Bearer {fake.world['admin_token']}"}
        delete_created(
            recorder,
            context,
            fake.world["graphql_url"],
            headers,
            json.dumps(body).encode(),
            label="generated",
        )
        context.close()
        assert (token_id in fake.deployment.tokens) is not own
    assert [failure.check for failure in report.failures] == ([] if own else ["cleanup"])


ITERATE_A_LISTING = """\
id: iterate-a-listing
title: Deletes each id its listing shows
rules: [PAT-LIST-OWN]
steps:
  - graphql: viewer
    bearer: ${admin_token}
    expect:
      - ok: true
    capture:
      ids: data.viewer.personalAccessTokens[*].id
  - for_each: ids
    graphql: delete_token
    args: {id: "${item}"}
    bearer: ${admin_token}
    expect:
      - ok: true
"""


def test_a_list_from_an_answer_cannot_make_a_step_run_without_end() -> None:
    fake = Fake()
    deletes: list[str] = []

    def step(request: httpx.Request, send: Handler) -> httpx.Response:
        if _operation(request) == "delete":
            deletes.append("sent")
        response = send(request)
        if _operation(request) != "viewer":
            return response
        response.read()
        body = response.json()
        tokens = body["data"]["viewer"]["personalAccessTokens"]
        body["data"]["viewer"]["personalAccessTokens"] = tokens * 2000
        return httpx.Response(response.status_code, headers=response.headers, json=body)

    events, _ = run_events(scenarios(ITERATE_A_LISTING), _through(fake, step), allow_writes=True)
    (failure,) = finished(events)["iterate-a-listing"].failures
    assert "more than the 1000 times a step may run" in failure.message
    assert deletes == []


def test_a_create_answering_the_id_of_the_runs_own_earlier_token_is_a_wrong_id() -> None:
    """The second create names the first one's id: counted as a wrong id, and each token
    the run made (both found by their names) is deleted once."""
    fake = Fake()
    first: list[str] = []

    def choose(f: Fake) -> str:
        made = _run_token_ids(f)
        if not first:
            first.extend(made)
        return first[0]

    target = _answering_id(choose)(fake)
    twice = scenarios(CREATE_ONE.replace("  - graphql:", "  - repeat: 2\n    graphql:"))
    events, end = run_events(twice, target, allow_writes=True)
    assert _run_token_ids(fake) == set()
    assert end.tallies is not None
    assert end.tallies.wrong_ids == 1
    assert end.tallies.tokens_created == end.tallies.tokens_deleted == 2
    (failure,) = finished(events)["create-one"].failures
    assert "(#2)" in failure.step
    assert "a token that existed before the create" in failure.message


def _create_through(context: RunContext, name: str, *, reuse_listing: bool) -> str:
    """Create ``name`` as the admin through the run's custodian; the id it was confirmed as."""
    admin = context.config.text("admin_token")
    organization, _ = context.organization_id()
    query, _ = context.documents.create_token(name, organization)
    url = context.config.text("graphql_url") or ""

    def send() -> Any:
        headers = {"Authorization": f"Bearer {admin}"}
        return context.exchange.send(
            "POST", url, kind="graphql", headers=headers, json={"query": query}, repeat=False
        )

    context.custodian.create(name, send, bearer=admin, reuse_listing=reuse_listing)
    entry = context.ledger.entry(name)
    assert entry is not None
    assert entry.token_id
    return entry.token_id


@pytest.mark.parametrize("reuse", [False, True])
def test_a_create_may_let_the_creators_latest_listing_stand_for_the_one_before(
    reuse: bool,
) -> None:
    from patgate.calibration.comparison import NO_RULES
    from patgate.runner.session import open_session

    fake = Fake()
    sent: list[str] = []

    def step(request: httpx.Request, handler: Handler) -> httpx.Response:
        sent.append(_operation(request))
        return handler(request)

    target = _through(fake, step)
    with open_session(target, RunOptions(allow_writes=True), catalogue=NO_RULES) as session:
        context = session.context
        _create_through(context, context.new_name(), reuse_listing=reuse)
        sent.clear()
        made = _create_through(context, context.new_name(), reuse_listing=reuse)
        assert made in _admin_token_ids(fake)
        # Listed before (unless the first create's check stands for it), sent, then
        # confirmed by a listing that shows it under the run's name.
        assert sent == (["create", "viewer"] if reuse else ["viewer", "create", "viewer"])
    assert _run_token_ids(fake) == set()


def test_an_id_the_run_deleted_is_not_taken_as_held_before_a_later_create() -> None:
    # A deployment may give a deleted id to the next token: the latest listing that stands
    # for the one before a create must not hold the ids the run deleted since.
    from patgate.calibration.comparison import NO_RULES
    from patgate.runner.session import open_session

    fake = Fake()
    target = _through(fake, lambda request, handler: handler(request))
    with open_session(target, RunOptions(allow_writes=True), catalogue=NO_RULES) as session:
        context = session.context
        admin = context.config.text("admin_token")
        made = _create_through(context, context.new_name(), reuse_listing=True)
        latest = context.custodian.latest_ids(admin)
        assert latest is not None
        assert made in latest

        def send(query: str, variables: Any) -> Any:
            return context.graphql(query, variables, admin)

        context.custodian.delete(made, send, cleanup=False)
        assert context.custodian.latest_ids(admin) == latest - {made}
    assert _run_token_ids(fake) == set()
