"""The PAT lifecycle under fuzzed names: create, list, delete, with the rules checked each time.

Generated GraphQL cases almost never reach a successful create (their organization id is
random), so this pass sends the real organization id with names drawn by Hypothesis:
unicode, markup, control characters, empty and over-long ones, each after the run's
``patgate-<run id>-<n>`` name so that the ledger can find it again. Each name is either
refused with a coded error and no token value anywhere in the answer, or accepted; then the
value has the documented shape, the listing shows it only masked, and the token is deleted
at once, so the run never holds more than one token at a time.

Every create and delete goes through the session's custodian, so the ledger holds each
token before it exists: a fuzz run killed midway leaves tokens ``patgate cleanup`` finds.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from patgate.basics.observed import Observed
from patgate.basics.token_grammar import PatGrammar
from patgate.errors import PatgateError, UnexpectedAnswer
from patgate.fuzz.recorder import Answer, Recorder
from patgate.runner.connection.documents import Documents, organization_ids
from patgate.runner.context import RunContext

__all__ = ["NAME_LIMIT", "SPECIAL_NAMES", "delete_created", "name_strategy", "run_lifecycle"]

NAME_LIMIT = 255
"""The fake's longest token name: generated names reach just under and just over it."""

SPECIAL_NAMES = (
    "",
    " ",
    "<script>alert(1)</script>",
    "name\x00with NUL",
    "line\nbreak",
    "\u202eevil",
    "x" * 255,
    "x" * 256,
    "é" * 255,
    "😀" * 10,
    "Robert'); DROP TABLE tokens;--",
    "${jndi:ldap://127.0.0.1/a}",
)
"""Names every run tries (SECURITY D.43) before the generated ones."""

Runner = Callable[[Any, Callable[[Any], None]], None]
"""Runs a test function on the values of a Hypothesis strategy."""


def name_strategy(room: int = NAME_LIMIT) -> Any:
    """Name endings: short unicode text, and text that brings a name of ``NAME_LIMIT - room``
    characters around the fake's limit."""
    from hypothesis import strategies as st  # type: ignore[import-not-found, unused-ignore]

    return st.one_of(st.text(max_size=40), st.text(min_size=room - 5, max_size=room + 5))


def _answer_of(answer: Answer) -> Observed:
    return Observed(answer.status, answer.body.decode("utf-8", "replace"), dict(answer.headers))


def _json(answer: Answer) -> Any:
    try:
        return json.loads(answer.body)
    except ValueError:
        return None


def _field(payload: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(payload, dict):
            return None
        payload = payload.get(key)
    return payload


def _items(payload: Any, *path: str) -> list[Any]:
    # A live answer may hold anything where a list belongs; the verdicts already report it.
    found = _field(payload, *path)
    return found if isinstance(found, list) else []


class _Cycle:
    def __init__(
        self,
        recorder: Recorder,
        documents: Documents,
        url: str,
        headers: Mapping[str, str],
        label: str,
        organization_id: str,
        pat: PatGrammar,
        context: RunContext,
        bearer: str,
    ) -> None:
        self.context = context
        self.bearer = bearer
        self.recorder = recorder
        self.documents = documents
        self.url = url
        self.headers = headers
        self.label = label
        self.organization_id = organization_id
        self.pat_shape = pat.shape
        self.pat_scan = pat.scan

    def post(self, document: tuple[str, Mapping[str, Any] | None]) -> tuple[Answer, Any, str]:
        query, variables = document
        body = {"query": query, "variables": dict(variables or {})}
        answer = self.recorder.send("POST", self.url, headers=self.headers, json_body=body)
        reproduce = self.recorder.reproduction(
            "POST",
            self.url,
            [("Content-Type", "application/json"), *self.headers.items()],
            json.dumps(body),
        )
        self.recorder.judge(
            self.label, answer.status, answer.body, graphql=True, reproduce=reproduce
        )
        return answer, _json(answer), reproduce

    def fail(self, check: str, message: str, answer: Answer, reproduce: str) -> None:
        self.recorder.fail(self.label, check, message, answer.status, reproduce)

    def __call__(self, ending: str) -> None:
        name = _fit(self.context.new_name() + " ", ending)
        sent: list[tuple[Answer, Any, str]] = []

        def create() -> Observed:
            sent.append(self.post(self.documents.create_token(name, self.organization_id)))
            return _answer_of(sent[-1][0])

        try:
            self.context.custodian.create(
                name,
                create,
                bearer=self.bearer,
                bearer_key=self.context.config.key_holding(self.bearer),
            )
        except PatgateError as error:
            # No answer (or one the ledger must settle): the custodian finds it at the end.
            if not sent:
                raise
            self.recorder.report.notes.append(self.recorder.redactor.redact(str(error)))
            return
        answer, payload, line = sent[-1]
        created = _field(payload, "data", "createPersonalAccessToken")
        if not isinstance(created, dict):
            if self.pat_scan.search(answer.body.decode("utf-8", "replace")):
                self.fail("refusal_leaks_token", "a refused create holds a token", answer, line)
            codes = [_field(e, "extensions", "code") for e in _items(payload, "errors")]
            if not codes or not all(isinstance(code, str) for code in codes):
                self.fail("refusal_code", "a refused create has no error code", answer, line)
            return
        value, token_id = created.get("token"), created.get("id")
        if isinstance(value, str):
            if not self.pat_shape.fullmatch(value):
                self.fail("pat_format", "the created value has not the PAT shape", answer, line)
            # From now on the value is a secret: no later answer may hold it.
            self.recorder.redactor.register(value)
        if created.get("name") != name:
            self.fail("name_roundtrip", "the created token's name differs", answer, line)
        listing, listed, line = self.post(self.documents.viewer())
        tokens = _items(listed, "data", "viewer", "personalAccessTokens")
        shown = [t.get("token") for t in tokens if isinstance(t, dict) and t.get("id") == token_id]
        if not shown or not isinstance(shown[0], str) or "*" not in shown[0]:
            self.fail("listing_mask", "the new token is not listed masked", listing, line)
        if isinstance(token_id, str):
            deleted: list[tuple[Answer, Any, str]] = []

            def delete(query: str, variables: Mapping[str, Any] | None) -> Observed:
                deleted.append(self.post((query, variables)))
                return _answer_of(deleted[-1][0])

            self.context.custodian.delete(token_id, delete, cleanup=False)
            answer, body, line = deleted[-1]
            if _field(body, "errors") or not _field(body, "data", "deletePersonalAccessToken"):
                self.fail("cleanup", "deleting the new token failed", answer, line)


def _fit(start: str, ending: str) -> str:
    # A long ending is cut so that the whole name keeps its distance to the limit.
    if len(ending) >= NAME_LIMIT - 5:
        ending = ending[: max(len(ending) - len(start), 0)]
    return start + ending


def delete_created(
    recorder: Recorder,
    context: RunContext,
    url: str,
    headers: Mapping[str, str] | None,
    body: bytes,
    *,
    label: str,
) -> None:
    """Delete the token a generated create made, if it made one.

    Practically never needed (a generated organization id is random), but a live run must
    not leave a token behind. The value is registered as a secret first; the token goes into
    the ledger (under the name it was given) before the custodian deletes it, and only once
    the bearer's listing shows the id under that name.
    """
    try:
        created = _field(json.loads(body), "data", "createPersonalAccessToken")
    except ValueError:
        return
    if not isinstance(created, dict):
        return
    if isinstance(created.get("token"), str):
        recorder.redactor.register(created["token"])
    token_id = created.get("id")
    if not isinstance(token_id, str):
        message = "a generated create succeeded without selecting id; delete that token by hand"
        recorder.fail(label, "cleanup", message, 200, "")
        return
    name = created.get("name")
    bearer = (headers or {}).get("Authorization", "").removeprefix("Bearer ") or None
    # The id is the deployment's word: deleted only once the bearer's listing shows it under
    # the name the answer gave (an id of someone else's token is never deleted).
    if not isinstance(name, str) or not context.custodian.lists_as(bearer, token_id, name):
        message = (
            "a generated create answered an id its bearer does not list under the answered "
            "name (or selected no name); not deleted: delete that token by hand if it exists"
        )
        recorder.fail(label, "cleanup", message, 200, "")
        return
    key = context.config.key_holding(bearer)
    context.ledger.adopt(str(name) if name else f"generated {token_id}", token_id, bearer_key=key)
    answers: list[Answer] = []

    def send(query: str, variables: Mapping[str, Any] | None) -> Observed:
        json_body = {"query": query, "variables": dict(variables or {})}
        answers.append(recorder.send("POST", url, headers=headers, json_body=json_body))
        return _answer_of(answers[-1])

    context.custodian.delete(token_id, send, cleanup=False)
    answer = answers[-1]
    if not _field(_json(answer), "data", "deletePersonalAccessToken"):
        message = f"deleting a token a generated create made failed (HTTP {answer.status})"
        recorder.fail(label, "cleanup", message, answer.status, "")


def run_lifecycle(
    recorder: Recorder,
    context: RunContext,
    graphql_url: str,
    bearer: str,
    *,
    label: str,
    organization_id: str | None,
    pat: PatGrammar,
    runner: Runner,
) -> None:
    """Fuzz create / list / delete with generated names (see the module docstring)."""
    headers = {"Authorization": f"Bearer {bearer}"}

    def send(query: str) -> Observed:
        answer = recorder.send("POST", graphql_url, headers=headers, json_body={"query": query})
        return Observed(answer.status, answer.body.decode("utf-8", "replace"))

    documents = context.documents
    if not organization_id:
        try:
            query = documents.organizations()[0]
            found = organization_ids(send(query), documents.organizations_shape)
        except UnexpectedAnswer as error:
            recorder.report.notes.append(recorder.redactor.redact(str(error)))
            found = []
        organization_id = found[0] if found else None
    if not organization_id:
        recorder.report.tally(label).not_checked = "needs organization_id"
        return
    cycle = _Cycle(
        recorder,
        documents,
        graphql_url,
        headers,
        label,
        organization_id,
        pat,
        context,
        bearer,
    )
    for name in SPECIAL_NAMES:
        cycle(name)
    runner(name_strategy(NAME_LIMIT - len(context.ledger.name_prefix) - 4), cycle)
