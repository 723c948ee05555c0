"""An independent deployment of the vendor's token API, built from the documentation alone.

Nothing here comes from patgate: it reads only the vendor's documentation as restated in
``specs/rules.yaml`` (the ``specification:`` block). It serves, on 127.0.0.1 and an
ephemeral port, in a thread:

- ``POST {auth_url}/oauth/token``: OAuth 2.0 client credentials (form fields or HTTP Basic);
  the token is a JWT signed with a key made at start;
- ``POST {graphql_url}``: viewer (id, name, email, personalAccessTokens, organizations),
  createPersonalAccessToken (organization admins only, at most 5 per user, the full value
  once), deletePersonalAccessToken (the caller's own tokens);
- ``GET {base_url}/v2/content/hubs`` (a HAL page) and ``GET .../hubs/{id}``, authorized
  with a client-credential token or a PAT.

The management UI's approval path is a method pair (:meth:`State.request_token`,
:meth:`State.approve`): a member's requested token is listed but refused until approved.
With ``control=True`` it also serves the control API patgate's runner uses to set the
stage on a deployment it may control (users, roles, the UI's token requests, the clock).

Where the documentation is silent it chooses otherwise than patgate's fake, on every field of
the profile contract; :data:`INDEPENDENT_CHOICES` writes those choices down in that shape
(the newer fields' in :data:`~.open_choices.FURTHER_CHOICES`), and ``choices=`` changes any
of them for one deployment: :data:`SECOND_CHOICES` is a second deployment, choosing otherwise
again on eleven open points (:mod:`.open_choices`). ``break_rule`` breaks one
documented rule on purpose (:data:`BROKEN_RULES`), for the proofs that the gate fails it.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import copy
import hashlib
import hmac
import json
import math
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
from graphql import (
    GraphQLError,
    GraphQLObjectType,
    GraphQLSchema,
    NoSchemaIntrospectionCustomRule,
    build_schema,
    execute_sync,
    parse,
    specified_rules,
    validate,
)

from .open_choices import (
    FREE_FORM_SECTIONS,
    SECOND_CHOICE_PARTS,
    SECOND_CHOICES,
    check_further,
    ordered_hubs,
    page_links,
    problem_body,
    rate_limit_headers,
    refusal_message,
    shaped,
    timestamp_text,
    with_further,
)

__all__ = [
    "BROKEN_RULES",
    "INDEPENDENT_CHOICES",
    "SECOND_CHOICES",
    "SECOND_CHOICE_PARTS",
    "IndependentDeployment",
    "State",
    "running_independent_deployment",
]

PAT_PREFIX = "amp_pat_"
CAP = 5
"""Documented: "PATs per user: Up to 5"."""

INDEPENDENT_CHOICES: dict[str, Any] = {
    "profile_version": 1,
    "delete_result": {
        "shape": "object",
        "object_type": "PersonalAccessTokenDeletion",
        "fields": {"id": "token_id", "deleted": "true"},
    },
    "masked_token": {"visible_characters": 4, "mask_character": "*", "mask_width": 16},
    "refusals": {
        "unauthenticated": {
            "status": 401,
            "code": "AUTH_REQUIRED",
            "message": "Sign-in required: send a valid bearer token.",
        },
        "forbidden": {
            "status": 403,
            "code": "PERMISSION_DENIED",
            "message": "You do not have permission to do that.",
        },
        "not_found": {
            "status": 404,
            "code": "RESOURCE_NOT_FOUND",
            "message": "Nothing of that id is yours to see.",
        },
        "token_limit": {
            "status": 422,
            "code": "TOKEN_QUOTA_EXCEEDED",
            "message": "You already hold the maximum number of personal access tokens.",
        },
        "invalid_input": {
            "status": 422,
            "code": "INVALID_ARGUMENT",
            "message": "The input is not valid.",
        },
        "rate_limited": {
            "status": 429,
            "code": None,
            "message": "Request quota exceeded; retry later.",
        },
    },
    "client_token": {"expires_in": 3600, "token_type": "bearer"},
    "hubs": {
        "fields": [
            "id",
            "name",
            "label",
            "status",
            "createdBy",
            "createdDate",
            "lastModifiedBy",
            "lastModifiedDate",
        ],
        "links": ["self"],
        "date_precision": "milliseconds",
    },
    "pages": {"default_size": 10, "maximum_size": 50},
    "rate_limit": {"requests_per_minute": 600},
    "pat_name": {"max_length": 100},
    "listing_order": "created_descending",
    "date_precision": {"lastUsedDate": "seconds"},
    "last_used_date": {"update_interval_seconds": 60},
}
"""What this deployment chose where the documentation is silent, in the profile contract's
shape (version 1). Read-only: :func:`running_independent_deployment` hands out copies."""

BROKEN_RULES: dict[str, str] = {
    "sixth_token": "PAT-CAP",
    "unmasked_listing": "PAT-LIST-MASKED",
    "member_creates": "PAT-ADMIN-ONLY",
    "never_last_used": "PAT-LAST-USED",
    "removal_ignored": "PAT-REMOVAL-IMMEDIATE",
    "pat_expires": "PAT-NO-EXPIRY",
    "approval_skipped": "PAT-APPROVAL",
}
"""``break_rule`` switches: each breaks the documented clause behind one gate rule."""

SESSION_EXPIRES_IN = 7200
CLIENT_SCOPE = "content"

SCHEMA_SDL = """
type Query {{
  viewer: Viewer
}}

type Mutation {{
  createPersonalAccessToken(input: NewPersonalAccessToken!): PersonalAccessToken
  deletePersonalAccessToken(input: PersonalAccessTokenReference!): {delete_type}
}}

type Viewer {{
  id: ID!
  name: String
  email: String
  personalAccessTokens: [PersonalAccessToken!]!
  organizations: [Organization!]!
}}

type Organization {{
  id: ID!
  name: String!
}}

type PersonalAccessToken {{
  id: ID!
  name: String!
  token: String!
  createdDate: String!
  lastUsedDate: String
}}

{delete_definition}
input NewPersonalAccessToken {{
  name: String!
  organizationId: ID!
}}

input PersonalAccessTokenReference {{
  id: ID!
}}
"""


# -- refusals -------------------------------------------------------------------------------


class Refusal(Exception):
    """A refusal of one kind (a key of the choices' ``refusals``); how it looks on the wire
    is the deployment's choice (:meth:`State.refusal`)."""

    def __init__(self, kind: str, retry_after: int = 1) -> None:
        self.kind = kind
        self.retry_after = retry_after
        """Seconds until a request would be admitted again (``rate_limited`` only)."""
        super().__init__(kind)


# -- the state ------------------------------------------------------------------------------


def _created_text(moment: float) -> str:
    """Documented: "ISO 8601 UTC timestamp with milliseconds"."""
    stamp = datetime.fromtimestamp(moment, timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z"


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode("utf-8")).digest()


@dataclass
class User:
    id: str
    name: str
    email: str
    organizations: dict[str, str]
    """organization id -> role (``admin`` or ``member``)."""
    content: bool = True
    """Whether the user may read the content API."""


@dataclass
class Token:
    id: str
    user_id: str
    organization_id: str
    name: str
    segment: str
    digest: bytes
    created: float
    sequence: int
    last_used: float | None = None
    pending: bool = False


@dataclass
class Hub:
    id: str
    organization_id: str
    name: str
    label: str
    created: float
    region: str = "eu-west-1"
    plan: str = "standard"


@dataclass(frozen=True)
class Caller:
    """Who sent a request: a user through a PAT, or an API client through a client token."""

    user: User | None
    organization_id: str
    token: Token | None = None


@dataclass
class State:
    """Users, organizations, tokens and hubs; every method takes the lock."""

    clock: Callable[[], float] = time.time
    offset: float = 0.0
    """Seconds the control API moved this deployment's time forward."""
    break_rule: str | None = None
    choices: dict[str, Any] = field(default_factory=lambda: copy.deepcopy(INDEPENDENT_CHOICES))
    introspection: bool = True
    """Whether the GraphQL schema answers ``__schema`` and ``__type`` (many production
    servers switch it off; the documentation says nothing of it)."""
    lock: threading.RLock = field(default_factory=threading.RLock)
    users: dict[str, User] = field(default_factory=dict)
    organizations: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, Token] = field(default_factory=dict)
    hubs: list[Hub] = field(default_factory=list)
    clients: dict[str, tuple[str, str]] = field(default_factory=dict)
    """client id -> (secret, organization id)."""
    signing_key: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    _sequence: int = 0
    _requests: dict[bytes, list[float]] = field(default_factory=dict)

    def now(self) -> float:
        """This deployment's time: its clock, plus what the control API added."""
        return self.clock() + self.offset

    # -- refusals ------------------------------------------------------------------------

    def refusal(self, refusal: Refusal) -> dict[str, Any]:
        """``status``, ``message`` and (but for ``rate_limited``) ``code`` of a refusal."""
        detail: dict[str, Any] = self.choices["refusals"][refusal.kind]
        return detail

    def graphql_error(self, refusal: Refusal, operation: str | None = None) -> GraphQLError:
        """The GraphQL error of a refusal in ``operation`` (its message may be its own)."""
        code = self.refusal(refusal).get("code")
        extensions = {"code": code} if code is not None else None
        message = refusal_message(self.choices, refusal.kind, operation)
        return GraphQLError(message, extensions=extensions)

    def content_answer(self, refusal: Refusal, operation: str) -> tuple[int, Any, str]:
        """Status, body and content type of a content API refusal in ``operation``: JSON
        ``errors``, or RFC 9457 problem details, as the choices say."""
        detail = self.refusal(refusal)
        status, code = detail["status"], detail.get("code")
        message = refusal_message(self.choices, refusal.kind, operation)
        if self.choices["content_errors"]["format"] == "problem+json":
            problem = problem_body(refusal.kind, status, code, message)
            return status, problem, "application/problem+json"
        return status, {"errors": [{"code": code, "message": message}]}, "application/json"

    def announcement(self, window: tuple[int, int] | None) -> dict[str, str]:
        """The rate limit's headers for what is left of a caller's minute (``window``:
        requests, seconds), when the choices announce it."""
        rate_limit = self.choices["rate_limit"] or {}
        if window is None or rate_limit.get("announce", "none") == "none":
            return {}
        return rate_limit_headers(rate_limit["requests_per_minute"], *window)

    # -- tokens --------------------------------------------------------------------------

    def mint(
        self, user: User, organization_id: str, name: str, *, pending: bool = False
    ) -> tuple[Token, str]:
        """A new token for ``user`` (no permission check) and its full value."""
        with self.lock:
            segment = secrets.token_hex(8)
            value = f"{PAT_PREFIX}{segment}.{secrets.token_urlsafe(32)}"
            self._sequence += 1
            token = Token(
                id=str(uuid.uuid4()),
                user_id=user.id,
                organization_id=organization_id,
                name=name,
                segment=segment,
                digest=_digest(value),
                created=self.now(),
                sequence=self._sequence,
                pending=pending,
            )
            self.tokens[token.id] = token
            return token, value

    def own_tokens(self, user_id: str) -> list[Token]:
        with self.lock:
            mine = [t for t in self.tokens.values() if t.user_id == user_id]
        order = self.choices["listing_order"]
        if order == "name_ascending":
            return sorted(mine, key=lambda t: (t.name, t.sequence))
        return sorted(
            mine, key=lambda t: (t.created, t.sequence), reverse=order == "created_descending"
        )

    def create(self, caller: Caller, name: str, organization_id: str) -> tuple[Token, str]:
        if not name.strip() or len(name) > self.choices["pat_name"]["max_length"]:
            raise Refusal("invalid_input")
        with self.lock:
            user = caller.user
            role = user.organizations.get(organization_id) if user is not None else None
            if user is None or role is None:
                raise Refusal("forbidden")
            if role != "admin" and self.break_rule != "member_creates":
                raise Refusal("forbidden")
            if len(self.own_tokens(user.id)) >= CAP and self.break_rule != "sixth_token":
                raise Refusal("token_limit")
            return self.mint(user, organization_id, name)

    def delete(self, caller: Caller, token_id: str) -> Token:
        with self.lock:
            token = self.tokens.get(token_id)
            # Documented: the caller's own token (or an admin holding the token itself).
            if token is None or caller.user is None or token.user_id != caller.user.id:
                raise Refusal("not_found")
            del self.tokens[token_id]
            return token

    def request_token(self, user_id: str, name: str, organization_id: str) -> tuple[str, str]:
        """The management UI's path for a member: a pending token (id, value)."""
        with self.lock:
            user = self.users[user_id]
            token, value = self.mint(user, organization_id, name, pending=True)
            return token.id, value

    def approve(self, token_id: str) -> None:
        """An organization admin approves a pending token: it becomes usable."""
        with self.lock:
            self.tokens[token_id].pending = False

    def remove_user(self, user_id: str, organization_id: str) -> None:
        with self.lock:
            self.users[user_id].organizations.pop(organization_id, None)

    def masked(self, token: Token) -> str:
        mask = self.choices["masked_token"]
        visible = token.segment[: int(mask["visible_characters"])]
        return PAT_PREFIX + visible + str(mask["mask_character"]) * int(mask["mask_width"])

    def token_view(self, token: Token, value: str | None = None) -> dict[str, Any]:
        if value is None:
            value = self.masked(token)
        return {
            "id": token.id,
            "name": token.name,
            "token": value,
            "createdDate": _created_text(token.created),
            "lastUsedDate": None if token.last_used is None else self._last_used_text(token),
        }

    def _last_used_text(self, token: Token) -> str:
        assert token.last_used is not None
        precision = self.choices["date_precision"]["lastUsedDate"]
        return timestamp_text(
            token.last_used, precision, self.choices["date_offset"]["lastUsedDate"]
        )

    # -- authentication --------------------------------------------------------------------

    def issue_client_token(self, client_id: str, client_secret: str) -> dict[str, Any] | None:
        known = self.clients.get(client_id)
        if known is None or not hmac.compare_digest(known[0], client_secret):
            return None
        now = int(self.now())
        lifetime: int = self.choices["client_token"]["expires_in"]
        claims = {
            "sub": client_id,
            "org": known[1],
            "scope": CLIENT_SCOPE,
            "iat": now,
            "exp": now + lifetime,
            "jti": secrets.token_hex(8),
        }
        answer = {
            "access_token": jwt.encode(claims, self.signing_key, algorithm="HS256"),
            "token_type": self.choices["client_token"]["token_type"],
            "expires_in": lifetime,
            "session_expires_in": SESSION_EXPIRES_IN,
            "scope": CLIENT_SCOPE,
        }
        if answer["token_type"] is None:
            del answer["token_type"]
        return shaped(answer, self.choices["shapes"].get("token"))

    def authenticate(self, authorization: str | None) -> Caller:
        """The caller behind an Authorization header, or a refusal (validated on each use)."""
        if not authorization:
            raise Refusal("unauthenticated")
        scheme, _, credential = authorization.strip().partition(" ")
        credential = credential.strip()
        if scheme.lower() != "bearer" or not credential:
            raise Refusal("unauthenticated")
        if credential.startswith(PAT_PREFIX):
            return self._pat_caller(credential)
        try:
            claims = jwt.decode(
                credential,
                self.signing_key,
                algorithms=["HS256"],
                options={
                    "require": ["exp", "sub", "org"],
                    # This deployment judges time by its own clock, below.
                    "verify_exp": False,
                    "verify_iat": False,
                    "verify_nbf": False,
                },
            )
        except jwt.PyJWTError:
            raise Refusal("unauthenticated") from None
        if claims["exp"] <= self.now() or claims["sub"] not in self.clients:
            raise Refusal("unauthenticated")
        return Caller(user=None, organization_id=str(claims["org"]))

    def _pat_caller(self, value: str) -> Caller:
        segment = value[len(PAT_PREFIX) :].partition(".")[0]
        digest = _digest(value)
        with self.lock:
            token = next(
                (
                    t
                    for t in self.tokens.values()
                    if t.segment == segment and hmac.compare_digest(t.digest, digest)
                ),
                None,
            )
            if token is None or token.pending or self._expired(token):
                raise Refusal("unauthenticated")
            user = self.users[token.user_id]
            removed = token.organization_id not in user.organizations
            if removed and self.break_rule != "removal_ignored":
                raise Refusal("forbidden")
            self._touch(token)
            return Caller(user=user, organization_id=token.organization_id, token=token)

    def _expired(self, token: Token) -> bool:
        # Documented: "A PAT has no expiry state"; only the switch gives it a day.
        return self.break_rule == "pat_expires" and self.now() - token.created > 86400

    def _touch(self, token: Token) -> None:
        # Null until the first use; after that it moves at most once a minute.
        now = self.now()
        interval = self.choices["last_used_date"]["update_interval_seconds"]
        if self.break_rule == "never_last_used":
            return
        if token.last_used is None or now - token.last_used >= interval:
            token.last_used = now

    def admit(self, authorization: str | None) -> tuple[int, int] | None:
        """The GraphQL rate limit: so many requests a minute per credential. Returns what is
        left of the caller's minute (requests, seconds until it resets; a request with no
        credential counts against nobody), ``None`` with no limit."""
        rate_limit = self.choices["rate_limit"]
        limit = rate_limit.get("requests_per_minute") if rate_limit else None
        if limit is None:
            return None
        if not authorization:
            return limit, 60
        key = _digest(authorization)
        now = self.now()
        with self.lock:
            recent = [t for t in self._requests.get(key, []) if now - t < 60]
            reset = max(1, math.ceil(recent[0] + 60 - now)) if recent else 60
            if len(recent) >= limit:
                self._requests[key] = recent
                raise Refusal("rate_limited", reset)
            recent.append(now)
            self._requests[key] = recent
            return limit - len(recent), reset


# -- GraphQL --------------------------------------------------------------------------------


def _schema_text(delete_result: dict[str, Any]) -> str:
    """The SDL, with the delete's result as the choices say (a Boolean, or an object)."""
    if delete_result["shape"] == "boolean":
        return SCHEMA_SDL.format(delete_type="Boolean", delete_definition="")
    kinds = {"token_id": "ID!", "true": "Boolean!", "name": "String!"}
    name = delete_result["object_type"]
    fields = "".join(f"  {key}: {kinds[what]}\n" for key, what in delete_result["fields"].items())
    return SCHEMA_SDL.format(delete_type=name, delete_definition=f"type {name} {{\n{fields}}}\n")


def _refused(info: Any, refusal: Refusal, operation: str) -> GraphQLError:
    """The error of a refusal inside an executed document, its kind kept for the status."""
    info.context["refused"].append(refusal.kind)
    state: State = info.context["state"]
    return state.graphql_error(refusal, operation)


def _build_schema(choices: dict[str, Any]) -> GraphQLSchema:
    schema = build_schema(_schema_text(choices["delete_result"]))

    def viewer(_root: Any, info: Any) -> Caller:
        caller: Caller = info.context["caller"]
        state: State = info.context["state"]
        removed = (
            caller.user is not None and caller.organization_id not in caller.user.organizations
        )
        if removed and state.break_rule != "removal_ignored":
            raise _refused(info, Refusal("forbidden"), "list_tokens")
        return caller

    def viewer_field(name: str) -> Callable[..., Any]:
        def resolve(caller: Caller, _info: Any) -> Any:
            if caller.user is None:
                return {"id": "client", "name": "API client", "email": None}[name]
            return getattr(caller.user, name)

        return resolve

    def viewer_tokens(caller: Caller, info: Any) -> list[dict[str, Any]]:
        state: State = info.context["state"]
        if caller.user is None:
            return []
        reveal = state.break_rule == "unmasked_listing"
        views = []
        for token in state.own_tokens(caller.user.id):
            value = info.context["values"].get(token.id) if reveal else None
            views.append(state.token_view(token, value))
        return views

    def viewer_organizations(caller: Caller, info: Any) -> list[dict[str, str]]:
        state: State = info.context["state"]
        ids = list(caller.user.organizations) if caller.user else [caller.organization_id]
        return [{"id": org, "name": state.organizations[org]} for org in ids]

    def create(_root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
        state: State = info.context["state"]
        try:
            token, value = state.create(
                info.context["caller"], input["name"], input["organizationId"]
            )
        except Refusal as refusal:
            raise _refused(info, refusal, "create_token") from None
        if state.break_rule == "unmasked_listing":
            info.context["values"][token.id] = value
        return state.token_view(token, value)

    def delete(_root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any] | bool:
        state: State = info.context["state"]
        try:
            token = state.delete(info.context["caller"], input["id"])
        except Refusal as refusal:
            raise _refused(info, refusal, "delete_token") from None
        if state.choices["delete_result"]["shape"] == "boolean":
            return True
        carried = {"token_id": token.id, "true": True, "name": token.name}
        return {
            key: carried[what] for key, what in state.choices["delete_result"]["fields"].items()
        }

    query = schema.query_type
    mutation = schema.mutation_type
    viewer_type = schema.get_type("Viewer")
    if query is None or mutation is None or not isinstance(viewer_type, GraphQLObjectType):
        raise TypeError("SCHEMA_SDL lacks Query, Mutation or Viewer")
    query.fields["viewer"].resolve = viewer
    mutation.fields["createPersonalAccessToken"].resolve = create
    mutation.fields["deletePersonalAccessToken"].resolve = delete
    fields = viewer_type.fields
    for name in ("id", "name", "email"):
        fields[name].resolve = viewer_field(name)
    fields["personalAccessTokens"].resolve = viewer_tokens
    fields["organizations"].resolve = viewer_organizations
    return schema


# -- HTTP -----------------------------------------------------------------------------------


_NO_ROUTE = {"errors": [{"code": "NO_ROUTE", "message": "No such path."}]}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return  # quiet

    # -- answers ------------------------------------------------------------------------

    def _answer(
        self,
        status: int,
        body: Any,
        headers: dict[str, str] | None = None,
        content_type: str = "application/json",
    ) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _refuse_content(self, refusal: Refusal, operation: str) -> None:
        headers = {}
        if refusal.kind == "unauthenticated":
            headers["WWW-Authenticate"] = 'Bearer realm="content"'
        if refusal.kind == "rate_limited":
            headers["Retry-After"] = str(refusal.retry_after)
        status, body, content_type = self.server.state.content_answer(refusal, operation)
        self._answer(status, body, headers, content_type)

    def _no_content_route(self) -> None:
        if self.server.state.choices["content_errors"]["format"] == "problem+json":
            problem = problem_body("no_route", 404, "NO_ROUTE", "No such path.")
            self._answer(404, problem, content_type="application/problem+json")
        else:
            self._answer(404, _NO_ROUTE)

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    # -- routes -------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        if self.server.control and path.startswith(self.server.paths["control"]):
            self._control(path, b"")
        elif path.startswith(self.server.paths["content"]):
            self._content()
        else:
            self._answer(404, _NO_ROUTE)

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        body = self._body()
        if self.server.control and path.startswith(self.server.paths["control"]):
            self._control(path, body)
        elif path == self.server.paths["token"]:
            self._token(body)
        elif path == self.server.paths["graphql"]:
            self._graphql(body)
        elif path.startswith(self.server.paths["content"]):
            self._content()
        else:
            self._answer(404, _NO_ROUTE)

    def _control(self, path: str, body: bytes) -> None:
        """The control API patgate's runner speaks to a deployment it may set the stage on
        (``control_url``): users, roles, the UI's token requests and the clock. Tests only."""
        presented = self.headers.get("Authorization", "")
        if not hmac.compare_digest(presented, f"Bearer {self.server.control}"):
            self._answer(401, {"error": {"code": "UNAUTHENTICATED", "message": "control key"}})
            return
        try:
            request = json.loads(body) if body else {}
            answer = self.server.controls.perform(self.command, path, request)
        except (KeyError, TypeError, ValueError) as error:
            self._answer(400, {"error": {"code": "BAD_REQUEST", "message": repr(error)}})
            return
        if answer is None:
            self._answer(404, {"error": {"code": "NOT_FOUND", "message": path}})
        else:
            self._answer(200, answer)

    def _token(self, body: bytes) -> None:
        state = self.server.state
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        basic = self.headers.get("Authorization", "")
        if basic[:6].lower() == "basic ":
            try:
                pair = base64.b64decode(basic[6:].strip(), validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError):
                pair = ""
            client_id, _, client_secret = pair.partition(":")
        no_store = {"Cache-Control": "no-store", "Pragma": "no-cache"}
        if form.get("grant_type") is None:
            self._answer(400, {"error": "invalid_request"}, no_store)
            return
        if form["grant_type"] != "client_credentials":
            self._answer(400, {"error": "unsupported_grant_type"}, no_store)
            return
        issued = state.issue_client_token(client_id or "", client_secret or "")
        if issued is None:
            # Documented: status 400 when the client id or secret is not valid.
            self._answer(400, {"error": "invalid_client"}, no_store)
            return
        self._answer(200, issued, no_store)

    def _graphql(self, body: bytes) -> None:
        state = self.server.state
        authorization = self.headers.get("Authorization")
        announced: dict[str, str] = {}
        try:
            announced = state.announcement(state.admit(authorization))
            caller = state.authenticate(authorization)
        except Refusal as refusal:
            headers = dict(announced)
            if refusal.kind == "rate_limited":
                headers["Retry-After"] = str(refusal.retry_after)
                headers.update(state.announcement((0, refusal.retry_after)))
            error = state.graphql_error(refusal).formatted
            self._answer(state.refusal(refusal)["status"], {"errors": [error]}, headers)
            return
        status, answer = self._execute(body, caller)
        self._answer(status, answer, announced)

    def _execute(self, body: bytes, caller: Caller) -> tuple[int, dict[str, Any]]:
        """The status and answer of a GraphQL request from an admitted ``caller``."""
        state = self.server.state
        try:
            request = json.loads(body or b"null")
        except ValueError:
            request = None
        if not isinstance(request, dict) or not isinstance(request.get("query"), str):
            return 400, {"errors": [{"message": "Send a JSON object with a query."}]}
        variables = request.get("variables")
        try:
            document = parse(request["query"], max_tokens=5000)
        except GraphQLError as error:
            return 400, {"errors": [error.formatted]}
        except RecursionError:
            return 400, {"errors": [{"message": "The document is nested too deeply."}]}
        rules = None if state.introspection else [*specified_rules, NoSchemaIntrospectionCustomRule]
        problems = validate(self.server.schema, document, rules)
        if problems:
            return 400, {"errors": [p.formatted for p in problems]}
        refused: list[str] = []
        context = {"state": state, "caller": caller, "values": self.server.values}
        result = execute_sync(
            self.server.schema,
            document,
            context_value={**context, "refused": refused},
            variable_values=variables if isinstance(variables, dict) else None,
            operation_name=request.get("operationName"),
        )
        answer: dict[str, Any] = {"data": result.data}
        errors = list(result.errors or [])
        if errors:
            answer["errors"] = [error.formatted for error in errors]
        # A refusal inside an executed document answers 200 with errors (and the field
        # null), unless the choices give it its kind's status; what is refused before it
        # executes always carries the refusal's status.
        if refused and state.choices["graphql"]["refusal_status"] == "refusal":
            return state.refusal(Refusal(refused[0]))["status"], answer
        return 200, answer

    def _content(self) -> None:
        state = self.server.state
        parts = urlsplit(self.path)
        rest = parts.path[len(self.server.paths["content"]) :].strip("/").split("/")
        operation = "hub" if len(rest) == 2 else "hubs"
        try:
            caller = state.authenticate(self.headers.get("Authorization"))
            if caller.user is not None and not caller.user.content:
                raise Refusal("forbidden")
        except Refusal as refusal:
            self._refuse_content(refusal, operation)
            return
        if self.command != "GET" or rest[0] != "hubs" or len(rest) > 2:
            self._no_content_route()
            return
        hubs = [hub for hub in state.hubs if hub.organization_id == caller.organization_id]
        if len(rest) == 2:
            hub = next((h for h in hubs if h.id == rest[1]), None)
            if hub is None:
                self._refuse_content(Refusal("not_found"), operation)
            else:
                self._answer(200, self._hub_view(hub), content_type="application/hal+json")
            return
        self._hubs_page(hubs, parse_qs(parts.query))

    def _hubs_page(self, hubs: list[Hub], query: dict[str, list[str]]) -> None:
        choices = self.server.state.choices
        pages = choices["pages"]
        try:
            number = int(query.get("page", ["0"])[0])
            size = int(query.get("size", [str(pages["default_size"])])[0])
        except ValueError:
            number, size = -1, 0
        if size > pages["maximum_size"] and pages["over_maximum"] == "cut":
            size = pages["maximum_size"]
        if number < 0 or not 1 <= size <= pages["maximum_size"]:
            self._refuse_content(Refusal("invalid_input"), "hubs")
            return
        total = len(hubs)
        total_pages = (total + size - 1) // size
        shown = ordered_hubs(hubs, choices["hubs"]["order"])[number * size : (number + 1) * size]
        listing = self.server.urls["base_url"] + "/v2/content/hubs"

        def address(page: int) -> str:
            return f"{listing}?page={page}&size={size}"

        body = {
            "_embedded": {"hubs": [self._hub_view(hub) for hub in shown]},
            "_links": page_links(pages["links"], address, number, total_pages),
            "page": {
                "size": size,
                "totalElements": total,
                "totalPages": total_pages,
                "number": number,
            },
        }
        self._answer(200, body, content_type="application/hal+json")

    def _hub_view(self, hub: Hub) -> dict[str, Any]:
        href = f"{self.server.urls['base_url']}/v2/content/hubs/{hub.id}"
        choices = self.server.state.choices
        known = _hub_fields(hub, choices["date_offset"].get("hubs", "Z"))
        links = {relation: {"href": href} for relation in choices["hubs"]["links"]}
        shape = choices["shapes"].get("hub")
        if shape is not None:  # the shape names the keys, _links among them
            return shaped({**known, "_links": links}, shape)
        view = {name: known[name] for name in choices["hubs"]["fields"]}
        view["_links"] = links
        return view


def _hub_fields(hub: Hub, offset: str = "Z") -> dict[str, Any]:
    """Every field this deployment knows for a hub; the choices name those it serves."""
    created = timestamp_text(hub.created, "milliseconds", offset)
    return {
        "id": hub.id,
        "name": hub.name,
        "label": hub.label,
        "description": None,
        "status": "ACTIVE",
        "settings": {},
        "createdBy": "setup",
        "createdDate": created,
        "lastModifiedBy": "setup",
        "lastModifiedDate": created,
        "region": hub.region,
        "plan": hub.plan,
    }


HUB_LINKS = ("self", "hub")
LISTING_ORDERS = ("created_ascending", "created_descending", "name_ascending")
"""The HAL relations this deployment can serve for a hub (both name the hub itself)."""


def _merged(base: dict[str, Any], changes: Mapping[str, Any], where: str = "") -> dict[str, Any]:
    """``base`` with ``changes`` laid over it, one mapping level at a time; a key ``base``
    lacks is refused (``ValueError`` naming it), but in a section whose keys are names
    (:data:`~.open_choices.FREE_FORM_SECTIONS`, checked by :func:`_checked`)."""
    merged = copy.deepcopy(base)
    named = where.split(".")[0] in FREE_FORM_SECTIONS
    for key, value in changes.items():
        if key not in merged and not named:
            raise ValueError(f"choices: unknown field {where}{key} (known: {sorted(merged)})")
        current = merged.get(key)
        whole = key in ("fields", "keys")
        if isinstance(current, dict) and isinstance(value, Mapping) and not whole:
            merged[key] = _merged(merged[key], value, f"{where}{key}.")
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _checked(choices: dict[str, Any]) -> dict[str, Any]:
    """``choices``, refused (``ValueError``) where this deployment cannot serve them."""
    hubs = choices["hubs"]
    unknown = [name for name in hubs["fields"] if name not in _hub_fields(_SAMPLE_HUB)]
    unknown += [relation for relation in hubs["links"] if relation not in HUB_LINKS]
    if unknown or not {"id", "name"} <= set(hubs["fields"]):
        raise ValueError(f"choices: hubs cannot serve {unknown} (id and name are always served)")
    delete = choices["delete_result"]
    if delete["shape"] not in ("boolean", "object"):
        raise ValueError(f"choices: delete_result.shape {delete['shape']!r}")
    if delete["shape"] == "object" and not set(delete["fields"].values()) <= {
        "token_id",
        "true",
        "name",
    }:
        raise ValueError(f"choices: delete_result.fields {delete['fields']!r}")
    if choices["listing_order"] not in (
        "created_ascending",
        "created_descending",
        "name_ascending",
    ):
        raise ValueError(f"choices: listing_order {choices['listing_order']!r}")
    if choices["masked_token"]["mask_character"] != "*":
        # Documented: "the rest is replaced by asterisks".
        raise ValueError("choices: masked_token.mask_character must be '*' (documented)")
    check_further(choices, list(_hub_fields(_SAMPLE_HUB)))
    return choices


_SAMPLE_HUB = Hub("0" * 24, "", "", "", 0.0)


@dataclass
class _Controls:
    """What the control API does to one deployment's state."""

    state: State
    organization_id: str
    users: dict[str, str]
    prefix: str

    def perform(self, method: str, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
        state = self.state
        route = (method, path[len(self.prefix) :])
        organization = body.get("organization_id") or self.organization_id
        if route == ("GET", "/world"):
            return {"organization_id": self.organization_id, **self.users}
        if route == ("GET", "/users"):
            with state.lock:
                users = [
                    {"id": user.id, "roles": dict(user.organizations)}
                    for user in state.users.values()
                ]
            return {"users": users}
        if route == ("POST", "/users/remove"):
            state.remove_user(str(body["user_id"]), organization)
            return {"removed": body["user_id"]}
        if route == ("POST", "/users/role"):
            with state.lock:
                role = str(body["role"])
                if role not in ("admin", "member"):
                    raise ValueError(f"role {role!r}")
                state.users[str(body["user_id"])].organizations[organization] = role
            return {"user_id": body["user_id"], "role": role}
        if route == ("POST", "/token-requests"):
            user_id = str(body["user_id"])
            with state.lock:
                admin = state.users[user_id].organizations.get(organization) == "admin"
                token, value = state.mint(
                    state.users[user_id],
                    organization,
                    str(body["name"]),
                    pending=not admin and state.break_rule != "approval_skipped",
                )
            status = "pending" if token.pending else "active"
            return {"id": token.id, "name": token.name, "value": value, "status": status}
        if route == ("POST", "/token-requests/approve"):
            state.approve(str(body["token_id"]))
            return {"id": body["token_id"], "status": "active"}
        if route == ("POST", "/token-requests/reject"):
            with state.lock:
                state.tokens.pop(str(body["token_id"]))
            return {"id": body["token_id"], "status": "rejected"}
        if route == ("POST", "/clock/advance"):
            seconds = float(body["seconds"])
            if not 0 <= seconds <= 10 * 365 * 86400:
                raise ValueError(f"seconds {seconds}")
            with state.lock:
                state.offset += seconds
            return {"now": _created_text(state.now())}
        return None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    control: str | None
    """The control API's key, or ``None`` when the deployment offers no control."""
    controls: _Controls
    state: State
    schema: GraphQLSchema
    paths: dict[str, str]
    urls: dict[str, str]
    values: dict[str, str]
    """Full token values by id, kept only for the ``unmasked_listing`` switch."""


# -- starting it ----------------------------------------------------------------------------


@dataclass
class IndependentDeployment:
    """A running deployment: its target file (:attr:`world`), its choices and its state."""

    world: dict[str, str]
    """The target file's keys (URLs, client credentials, organization id, four PATs)."""
    choices: dict[str, Any]
    """What this deployment chose: :data:`INDEPENDENT_CHOICES` and
    :data:`~.open_choices.FURTHER_CHOICES` with the ``choices=`` given laid over them, in the
    profile contract's shape (a copy)."""
    state: State
    users: dict[str, str]
    """``admin``, ``member``, ``removed``, ``unpermitted`` -> user id."""
    break_rule: str | None = None

    @property
    def broken_rule(self) -> str | None:
        """The gate rule the ``break_rule`` switch breaks, if any."""
        return BROKEN_RULES.get(self.break_rule) if self.break_rule else None

    def write_world(self, path: Path) -> Path:
        """The target file at ``path`` (JSON), for ``patgate run --world``."""
        path.write_text(json.dumps(self.world, indent=2), encoding="utf-8")
        return path


def _populate(state: State) -> tuple[dict[str, str], dict[str, str]]:
    """Users, organizations, hubs, an API client and one PAT per principal."""
    organization = f"org-{secrets.token_hex(6)}"
    other = f"org-{secrets.token_hex(6)}"
    state.organizations.update({organization: "Independent Press", other: "Elsewhere Ltd"})
    roles = {
        "admin": ("admin", True),
        "member": ("member", True),
        "removed": ("member", True),
        "unpermitted": ("member", False),
    }
    users: dict[str, str] = {}
    values: dict[str, str] = {}
    for key, (role, content) in roles.items():
        user = User(
            id=f"user-{secrets.token_hex(6)}",
            name=f"{key.title()} User",
            email=f"{key}@independent.invalid",
            organizations={organization: role},
            content=content,
        )
        state.users[user.id] = user
        users[key] = user.id
        values[key] = state.mint(user, organization, f"{key} key")[1]
    state.remove_user(users["removed"], organization)
    now = state.clock()
    places = (("news", "eu-west-1", "enterprise"), ("shop", "us-east-2", "standard"))
    for index, (name, region, plan) in enumerate((*places, ("blog", "ap-south-1", "trial"))):
        hub = Hub(secrets.token_hex(12), organization, name, name.title(), now - index)
        hub.region, hub.plan = region, plan
        state.hubs.append(hub)
    state.hubs.append(Hub(secrets.token_hex(12), other, "secret", "Secret", now))
    client_id = f"client-{secrets.token_hex(6)}"
    client_secret = secrets.token_urlsafe(24)
    state.clients[client_id] = (client_secret, organization)
    keys = {
        "client_id": client_id,
        "client_secret": client_secret,
        "organization_id": organization,
        "admin_token": values["admin"],
        "member_token": values["member"],
        "removed_token": values["removed"],
        "unpermitted_token": values["unpermitted"],
        "pat_prefix": PAT_PREFIX,
    }
    return keys, users


@contextlib.contextmanager
def running_independent_deployment(
    break_rule: str | None = None,
    *,
    clock: Callable[[], float] = time.time,
    introspection: bool = True,
    choices: Mapping[str, Any] | None = None,
    control: bool = False,
) -> Iterator[IndependentDeployment]:
    """The deployment on 127.0.0.1 (an ephemeral port, a thread), stopped on exit.

    ``break_rule``: one of :data:`BROKEN_RULES` to break that documented rule, or ``None``.
    ``clock``: seconds since the epoch (a test moves it to see expiry or lastUsedDate).
    ``introspection``: ``False`` refuses ``__schema`` and ``__type`` queries.
    ``choices``: fields of :data:`INDEPENDENT_CHOICES` to choose otherwise (the same shape,
    only what changes: ``{"rate_limit": {"requests_per_minute": 60}}``); ``.choices`` then
    says what the deployment does. A field it does not know, or cannot serve, raises
    ``ValueError``.
    ``control``: also serve the control API patgate's runner uses to set the stage (remove
    a user, change a role, the UI's token requests, move the clock), named by
    ``control_url`` and ``control_token`` in :attr:`~IndependentDeployment.world`."""
    if break_rule is not None and break_rule not in BROKEN_RULES:
        raise ValueError(f"break_rule must be one of {sorted(BROKEN_RULES)}, not {break_rule!r}")
    chosen = _checked(_merged(with_further(INDEPENDENT_CHOICES), choices or {}))
    state = State(clock=clock, break_rule=break_rule, introspection=introspection, choices=chosen)
    keys, users = _populate(state)
    schema = _build_schema(chosen)
    server = _Server(("127.0.0.1", 0), _Handler)
    server.state = state
    server.schema = schema
    server.values = {}
    server.paths = {
        "token": "/identity/oauth/token",
        "graphql": "/asset-management/graphql",
        "content": "/cms/v2/content",
        "control": "/stage",
    }
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    server.urls = {"base_url": origin + "/cms"}
    world = {
        "auth_url": origin + "/identity",
        "base_url": origin + "/cms",
        "graphql_url": origin + "/asset-management/graphql",
        **keys,
    }
    server.control = secrets.token_urlsafe(24) if control else None
    server.controls = _Controls(state, keys["organization_id"], users, server.paths["control"])
    if server.control is not None:
        world["control_url"] = origin + server.paths["control"]
        world["control_token"] = server.control
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="independent-deployment"
    )
    thread.start()
    try:
        yield IndependentDeployment(
            world=world,
            choices=copy.deepcopy(chosen),
            state=state,
            users=users,
            break_rule=break_rule,
        )
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
