"""Answers of the wrong JSON type at each place the runner reads an answer for itself, and
create answers that name the wrong id: each case names the text a failed step must show."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from patgate.wire.messages import WireRequest, WireResponse

from .server import Handler, Misbehaviour, is_create, is_graphql, is_listing, is_token, normal

Change = Callable[[Any], Any]


def is_introspection(request: WireRequest) -> bool:
    """The runner's first introspection query (the mutation and query roots)."""
    return is_graphql(request) and b"__schema" in request.body


def is_type_query(request: WireRequest) -> bool:
    """The runner's introspection of one type (the viewer's, the organizations')."""
    return is_graphql(request) and b"__type(" in request.body


def is_delete(request: WireRequest) -> bool:
    """A GraphQL request that deletes a PAT."""
    return is_graphql(request) and b"deletePersonalAccessToken" in request.body


def is_control(request: WireRequest) -> bool:
    """A call of the served fake's control API (its world, users, UI requests, clock)."""
    return "/__patgate/" in request.url


def is_organizations(request: WireRequest) -> bool:
    """The runner's query for the viewer's organizations."""
    return is_graphql(request) and b"organizations" in request.body and b"__" not in request.body


def rewrite(change: Change) -> Callable[[Handler, WireRequest, WireResponse], None]:
    """The fake's own JSON answer, with ``change`` applied to the whole body."""

    def write(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
        del request
        body = json.dumps(change(json.loads(answer.body))).encode()
        # The handler closes the connection after a writer; it says so, as a server must
        # (else a client may send its next request, a create, on a connection being closed).
        handler.send_raw(normal(answer, body=body, extra=b"Connection: close\r\n"))

    return write


def at(path: str, value: Any) -> Change:
    """A change that sets ``path`` (dots; ``*`` for every item of a list) to ``value``,
    wherever the path exists."""
    keys = path.split(".")

    def change(body: Any) -> Any:
        def walk(node: Any, rest: list[str]) -> Any:
            if not rest:
                return value
            key, *tail = rest
            if key == "*" and isinstance(node, list):
                return [walk(item, tail) for item in node]
            if isinstance(node, dict) and key in node:
                return {**node, key: walk(node[key], tail)}
            return node

        return walk(body, keys)

    return change


@dataclass(frozen=True)
class WrongType:
    """A misbehaviour and the text the run's output or report must show for it."""

    case: Misbehaviour
    shows: str
    drop: tuple[str, ...] = ()
    """Target keys left out of the world file (``organization_id``: discovered)."""
    scenarios: tuple[str, ...] = ()
    """The scenarios the run is narrowed to (all when empty), run one at a time so that the
    answers spoiled are the same in every run."""


CUSTODY = ("pat-approval", "pat-cap")
"""The scenarios whose tokens the custodian creates, lists and deletes first: an approved
request deleted in cleanup, then the cap probe's creates."""


FIELDS = "data.__schema.mutationType.fields"

WRONG_TYPES: tuple[WrongType, ...] = (
    # Introspection, the first thing a named operation needs.
    WrongType(
        Misbehaviour(
            "introspection-fields-as-object",
            rewrite(at(FIELDS, {"name": "x"})),
            is_introspection,
            times=1,
        ),
        "data.__schema.mutationType.fields: expected a list, got an object",
    ),
    WrongType(
        Misbehaviour(
            "introspection-name-as-list",
            rewrite(at(FIELDS + ".*.name", ["deletePersonalAccessToken"])),
            is_introspection,
            times=1,
        ),
        "data.__schema.mutationType.fields[0].name: expected a non-empty text, got a list",
    ),
    WrongType(
        Misbehaviour(
            "introspection-kind-as-number",
            rewrite(at(FIELDS + ".*.type.kind", 7)),
            is_introspection,
            times=1,
        ),
        "type.kind: expected a non-empty text, got the number 7",
    ),
    WrongType(
        Misbehaviour(
            "introspection-of-type-as-list",
            rewrite(at(FIELDS + ".*.type.ofType", [])),
            is_introspection,
            times=1,
        ),
        "type.ofType: expected an object, got a list of 0",
    ),
    WrongType(
        Misbehaviour(
            "type-query-fields-as-text",
            rewrite(at("data.__type.fields", "organizations")),
            is_type_query,
            times=1,
        ),
        "data.__type.fields: expected a list, got the text 'organizations'",
    ),
    # The viewer's organizations, when the target file does not give the id.
    WrongType(
        Misbehaviour(
            "organization-id-as-number",
            rewrite(at("data.viewer.organizations.edges.*.node.id", 42)),
            is_organizations,
            times=1,
        ),
        "node.id: expected a non-empty text, got the number 42",
        drop=("organization_id",),
        scenarios=CUSTODY,
    ),
    # The creator's listing the custodian reads before and after each create.
    WrongType(
        Misbehaviour(
            "listing-name-as-list",
            rewrite(at("data.viewer.personalAccessTokens.*.name", ["x"])),
            is_listing,
            times=4,
        ),
        "name: expected text, got a list",
        scenarios=CUSTODY,
    ),
    WrongType(
        Misbehaviour(
            "listing-id-as-number",
            rewrite(at("data.viewer.personalAccessTokens.*.id", 12)),
            is_listing,
            times=4,
        ),
        "id: expected a non-empty text, got the number 12",
        scenarios=CUSTODY,
    ),
    WrongType(
        Misbehaviour(
            "listing-tokens-as-object",
            rewrite(at("data.viewer.personalAccessTokens", {"id": "x"})),
            is_listing,
            times=4,
        ),
        "data.viewer.personalAccessTokens: expected a list, got an object",
        scenarios=CUSTODY,
    ),
    WrongType(
        Misbehaviour("listing-null-data", rewrite(at("data", None)), is_listing, times=4),
        "data: expected an object, got null",
        scenarios=CUSTODY,
    ),
    # The create's answer.
    WrongType(
        Misbehaviour(
            "create-id-as-number",
            rewrite(at("data.createPersonalAccessToken.id", 12345)),
            is_create,
            times=1,
        ),
        "data.createPersonalAccessToken.id: expected a non-empty text, got the number 12345",
        scenarios=CUSTODY,
    ),
    WrongType(
        Misbehaviour(
            "create-id-as-list",
            rewrite(at("data.createPersonalAccessToken.id", ["a"])),
            is_create,
            times=1,
        ),
        "data.createPersonalAccessToken.id: expected a non-empty text, got a list of 1",
        scenarios=CUSTODY,
    ),
    WrongType(
        Misbehaviour(
            "create-field-as-list",
            rewrite(at("data.createPersonalAccessToken", [1])),
            is_create,
            times=1,
        ),
        "data.createPersonalAccessToken: expected an object, got a list of 1",
    ),
    WrongType(
        Misbehaviour(
            "create-errors-not-a-list",
            rewrite(lambda body: {**body, "errors": "no"}),
            is_create,
            times=1,
        ),
        "errors: expected a list, got the text 'no'",
    ),
    WrongType(
        Misbehaviour(
            "create-data-as-list", rewrite(lambda body: {**body, "data": []}), is_create, times=1
        ),
        "data: expected an object, got a list of 0",
    ),
    # The served fake's control API, which control steps read.
    WrongType(
        Misbehaviour("control-answers-a-list", rewrite(lambda body: ["x"]), is_control, times=3),
        "the control API's answer is not of the expected shape",
    ),
    WrongType(
        Misbehaviour(
            "control-answers-an-object-of-lists",
            rewrite(lambda body: {key: [] for key in body} if isinstance(body, dict) else body),
            is_control,
            times=3,
        ),
        "the control API's answer is not of the expected shape",
    ),
    # A delete's answer and the token endpoint's.
    WrongType(
        Misbehaviour(
            "delete-errors-as-number",
            rewrite(lambda body: {**body, "errors": 5}),
            is_delete,
            times=50,
        ),
        "expected a success (2xx, no errors)",
    ),
    WrongType(
        Misbehaviour(
            "expires-in-huge",
            rewrite(at("expires_in", 10**400)),
            is_token,
            times=50,
        ),
        "failed",
    ),
)


def _foreign_id(handler: Handler) -> str:
    """The id of a token the run did not make: the admin's own token of the world."""
    fake = handler.server.fake
    deployment = fake.deployment
    principal = deployment.authenticate(fake.world["admin_token"])
    return next(
        t.id for t in deployment.list_tokens(principal) if not t.name.startswith("patgate-")
    )


def answer_id(
    choose: Callable[[Handler], str],
) -> Callable[[Handler, WireRequest, WireResponse], None]:
    """Every create's answer names the id ``choose`` gives (the token is made all the same)."""

    def write(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
        rewrite(at("data.createPersonalAccessToken.id", choose(handler)))(handler, request, answer)

    return write


FOREIGN_ID = Misbehaviour(
    "create-answers-a-foreign-id", answer_id(_foreign_id), is_create, times=1000
)
"""Each create answers the id of a token that existed before it (the admin's own)."""
UNKNOWN_ID = Misbehaviour(
    "create-answers-an-unknown-id",
    answer_id(lambda handler: "no-such-token"),
    is_create,
    times=1000,
)
"""Each create answers an id the deployment does not hold."""


def hostile_text(size: int) -> str:
    """``size`` characters slow for a backtracking token search: PAT prefixes, ``_pat_``
    runs, digits, JWT heads and near-JWTs, a line each."""
    pieces = ("amp_pat_", "a_pat_", "9", "eyJ", "eyJa.eyJ")
    part = size // len(pieces)
    # A line each: a backtracking search fails at every start of a long line of them.
    return "\n".join((piece * (part // len(piece) + 1))[: part - 1] for piece in pieces)


HOSTILE_TEXT = Misbehaviour(
    "answers-of-hostile-text",
    rewrite(lambda body: {"errors": [{"message": hostile_text(512 * 1024)}], "data": None}),
    # Listings, not every GraphQL answer: the run's own discovery tries several document
    # shapes and would absorb the first few errors before any scenario saw one.
    is_listing,
    times=6,
)
"""Token listings whose error message is half a megabyte of hostile text: every failure
that quotes them is redacted first."""
