"""Every control operation of the fake, declared once: the table the control plane is made from.

Each :class:`Operation` names a call, its parameters (with the Python annotation, the JSON
Schema of the HTTP control API and whether it travels in the body or the query), its result,
its docstring, its HTTP method and path under ``/__patgate``, and whether the management page
offers it. From :data:`OPERATIONS`:

- the HTTP control API's routes (``patgate.wire.control_api.ROUTES``) check the body and the
  query against the parameters and call the ``ControlService`` method of the same name;
- ``python -m patgate.control.document`` writes the ``paths`` of
  ``specs/control-openapi.yaml``, the control methods of ``patgate.Fake`` and
  ``patgate.ControlClient`` and the page's plain control actions (``ui/operations.py``),
  each between ``generated`` markers; a test regenerates them and fails on any difference.

Plain values only: this module imports nothing of patgate, so every layer may read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["OPERATIONS", "Operation", "Parameter", "by_name"]

MAX_TEXT = 1024
"""Characters a text field may hold (a hub's ``description``: :data:`MAX_DESCRIPTION`): well
inside what ``patgate serve --state`` loads again, so nothing accepted stops a restart."""
MAX_DESCRIPTION = 65536
MAX_CLOCK_MOVE = 10 * 365 * 86400
"""The largest clock move one call makes, in seconds (ten years)."""
MAX_LOG_PAGE = 10**6
MAX_LOG_PAGE_SIZE = 1000
"""The request log's largest page number and page size."""
ROLES = ("admin", "member", "restricted")
HUB_STATUSES = ("ACTIVE", "ARCHIVED")
"""A hub's statuses, as the content API shows them."""

_ID = {"$ref": "#/components/schemas/Id"}
_ROLE = {"$ref": "#/components/schemas/Role"}
_TEXT = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT}


@dataclass(frozen=True)
class Parameter:
    """One parameter of an operation.

    ``annotation`` is the Python type ``Fake`` and ``ControlService`` take;
    ``client_annotation`` the one ``ControlClient`` takes when it differs (the wire's plain
    form). ``default`` is Python source (``None``: required); ``required_on_wire``: optional
    in Python, required by the control API (the client's signature then has no default).
    ``schema`` is the parameter's JSON Schema in the control API; ``text``: an id, a name or
    an email, refused when empty; ``choices``: the values the API takes; ``query``: sent in
    the query string, not the body; ``wire``: ``False`` for a Python-only parameter;
    ``extra``: gathered by ``**name`` (a keyword the caller may add); ``refusal``: the
    message for a value out of bounds, the choices or the pattern.
    """

    name: str
    annotation: str
    schema: Mapping[str, Any] = field(default_factory=dict)
    default: str | None = None
    keyword_only: bool = False
    client_annotation: str | None = None
    required_on_wire: bool = False
    text: bool = False
    choices: tuple[str, ...] = ()
    query: bool = False
    wire: bool = True
    extra: bool = False
    refusal: str | None = None
    wire_name: str | None = None
    """Its name in the control API's body or query, when another (the API's came first)."""

    @property
    def required(self) -> bool:
        """Whether a caller must give it (no default, not a ``**`` keyword)."""
        return self.default is None and not self.extra

    @property
    def on_wire(self) -> str:
        """The parameter's name in the control API's body or query."""
        return self.wire_name or self.name


@dataclass(frozen=True)
class Operation:
    """One control operation: a ``ControlService`` method and everything made from it.

    ``returns``: what ``Fake`` answers (the service's domain value); ``client_returns`` and
    ``client_answer``: what ``ControlClient`` answers (see :attr:`client_result`), and the
    Python expression over the JSON ``answer`` that gives it. ``answer``: how the control API shapes
    the result (``None``: the domain value's own JSON view; else a named shape of
    ``control_api``); ``wrap``: the key the answer is put under; ``done``: the answer is
    ``{done: True}`` (or ``{done: <the parameter echo>}``). ``python``: ``Fake`` and
    ``ControlClient`` have a method of this name (``False``: reached otherwise, e.g. through
    ``faults``). ``page``: the management page offers the operation as it is.
    ``response``: the OpenAPI answer of success; ``errors``: the other statuses it may give.
    """

    name: str
    doc: str
    method: str
    path: str
    parameters: tuple[Parameter, ...] = ()
    returns: str = "None"
    client_returns: str | None = None
    client_answer: str = "answer"
    status: int = 200
    answer: str | None = None
    wrap: str | None = None
    done: str | None = None
    echo: str | None = None
    python: bool = True
    page: bool = False
    summary: str | None = None
    description: str | None = None
    response: Mapping[str, Any] = field(default_factory=dict)
    errors: tuple[int, ...] = ()
    body_ref: str | None = None
    body_schema_ref: str | None = None
    extra_name: str = "fields"

    @property
    def client_result(self) -> str:
        """What ``ControlClient`` answers: the JSON answer (``dict[str, Any]``) where ``Fake``
        answers a value, unless declared otherwise."""
        if self.client_returns is not None:
            return self.client_returns
        return "None" if self.returns == "None" else "dict[str, Any]"

    @property
    def operation_id(self) -> str:
        """The OpenAPI ``operationId``: the name in camel case."""
        first, *rest = self.name.split("_")
        return first + "".join(word.capitalize() for word in rest)

    @property
    def reads_body(self) -> bool:
        """Whether the API reads a JSON body (``GET`` and ``DELETE`` read none)."""
        return self.method in ("POST", "PUT")

    def wire_parameters(self) -> tuple[Parameter, ...]:
        """The parameters the control API takes."""
        return tuple(p for p in self.parameters if p.wire)


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/responses/{name}"}


def _json(description: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _component(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _listing(key: str, item: str) -> dict[str, Any]:
    items = {"type": "array", "items": _component(item)}
    return {"type": "object", "required": [key], "properties": {key: items}}


def _list(
    name: str,
    doc: str,
    path: str,
    key: str,
    item: tuple[str, str],
    described: str | None = None,
    **more: Any,
) -> Operation:
    """A listing: ``Fake`` answers the domain objects, the API and the client ``{key: [...]}``
    (the client the list); ``item`` is the Python type and the OpenAPI component;
    ``described``: the answer's description (default: "The <key>.")."""
    described = described or f"The {key}."
    return Operation(
        name,
        doc,
        "GET",
        path,
        returns=f"list[{item[0]}]",
        client_returns="list[dict[str, Any]]",
        client_answer=f'answer["{key}"]',
        wrap=key,
        response=_json(described, _listing(key, item[1])),
        **more,
    )


_FAULT_FIELDS = (
    ("operation", "string", True),
    ("principal", "string", True),
    ("count", "integer", False),
    ("probability", "number", False),
    ("status", "integer", False),
    ("body", "", False),
    ("retry_after", "integer", False),
    ("latency", "number", False),
    ("drop", "boolean", False),
)
"""A fault rule's fields past its endpoint: name, JSON type (any, when empty), and whether an
empty string is refused; their bounds are the fault model's to judge."""


def _whole_query(name: str, low: int, high: int, default: int) -> Parameter:
    """A whole number in the query string, from ``low`` to ``high``."""
    schema = {"type": "integer", "minimum": low, "maximum": high, "default": default}
    return Parameter(name, "int", schema, default=str(default), query=True)


_ORGANIZATION = Parameter("organization_id", "str | None", _ID, default="None", text=True)
_USER = Parameter("user_id", "str", _ID, text=True)
_TOKEN = Parameter("token_id", "str", _ID, text=True)

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "reset",
        "Back to the default world with the same credentials; no faults; an empty log.",
        "POST",
        "/reset",
        done="reset",
        page=True,
        summary="Back to the seeded world with the same credentials; no faults; an empty log.",
        response=_ref("Done"),
    ),
    Operation(
        "snapshot",
        "The state as JSON values (users, roles, clients, hubs, masked tokens, clock).",
        "GET",
        "/snapshot",
        returns="dict[str, Any]",
        summary="The state; tokens masked with their status, never a secret or a hash.",
        response=_json("The state.", _component("Snapshot")),
    ),
    Operation(
        "world_ids",
        "The seeded world's organization and principals (``admin``, ...) by id.",
        "GET",
        "/world",
        returns="dict[str, str]",
        client_returns="dict[str, str]",
        client_answer="answer",
        summary="The seeded world's organization and principals by role name; ids only.",
        response=_json(
            "The ids.",
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["organization_id", "admin", "member", "removed", "unpermitted"],
                "properties": {
                    name: {"type": "string"}
                    for name in ("organization_id", "admin", "member", "removed", "unpermitted")
                },
            },
        ),
    ),
    _list("users", "Every user, members or not.", "/users", "users", ("User", "User")),
    Operation(
        "add_user",
        "A new user in the organization (default: the world's) with ``role``.",
        "POST",
        "/users",
        (
            Parameter("name", "str", _TEXT, text=True),
            Parameter("email", "str | None", _TEXT, default="None", text=True),
            Parameter(
                "role",
                "Role | str",
                _ROLE,
                default='"member"',
                keyword_only=True,
                client_annotation="str",
                choices=ROLES,
            ),
            Parameter(
                "organization_id", "str | None", _ID, default="None", keyword_only=True, text=True
            ),
        ),
        returns="User",
        status=201,
        summary="A new user in the organization (default, the world's).",
        response=_ref("User"),
        errors=(404,),
    ),
    Operation(
        "remove_user",
        "Remove the user from the organization; their PATs stop working at once.",
        "POST",
        "/users/remove",
        (_USER, _ORGANIZATION),
        answer="user",
        response=_ref("User"),
        errors=(404,),
        body_ref="UserRef",
    ),
    Operation(
        "restore_user",
        "Add a removed user back with the role they had; their PATs work again.",
        "POST",
        "/users/restore",
        (_USER, _ORGANIZATION),
        answer="user",
        summary="Add a removed user back with the role they had (member if unknown).",
        response=_ref("User"),
        errors=(404,),
        body_ref="UserRef",
    ),
    Operation(
        "set_role",
        "Change the user's role, or add them back to the organization with it.",
        "POST",
        "/users/role",
        (
            _USER,
            Parameter("role", "Role | str", _ROLE, client_annotation="str", choices=ROLES),
            _ORGANIZATION,
        ),
        answer="user",
        response=_ref("User"),
        errors=(404,),
    ),
    _list(
        "clients",
        "Every API client (never a secret).",
        "/clients",
        "clients",
        ("ApiClient", "Client"),
        summary="Every API client; never a secret.",
    ),
    Operation(
        "add_client",
        """A new API key: ``(client_id, client_secret)``, for the client-credentials grant.

        ``user_id``: the user its tokens act as (default: the world's admin,
        ``default_world.admin_id``, like the world's own client; the control API needs it);
        their role and membership decide what the tokens may do. ``organization_id``: the
        organization the tokens work in (default: the world's). The secret is shown only here
        (the fake keeps its hash) and is redacted from the request log.""",
        "POST",
        "/clients",
        (
            Parameter(
                "user_id",
                "str | None",
                _ID,
                default="None",
                client_annotation="str",
                required_on_wire=True,
                text=True,
            ),
            _ORGANIZATION,
        ),
        returns="tuple[str, str]",
        client_returns="tuple[str, str]",
        client_answer='(answer["client_id"], answer["client_secret"])',
        status=201,
        answer="credentials",
        summary="An API key acting as a user; the secret is shown once, here.",
        response=_json(
            "The new client's credentials.",
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["client_id", "client_secret"],
                "properties": {
                    "client_id": {"type": "string"},
                    "client_secret": {"type": "string"},
                },
            },
        ),
        errors=(404,),
        body_ref="UserRef",
    ),
    _list(
        "hubs",
        "Every hub of every organization.",
        "/hubs",
        "hubs",
        ("Hub", "Hub"),
        summary="Every hub.",
    ),
    Operation(
        "add_hub",
        "A hub in the organization; ``fields`` may set label, description, status, ...",
        "POST",
        "/hubs",
        (
            Parameter("name", "str", _TEXT, text=True),
            Parameter(
                "organization_id", "str | None", _ID, default="None", keyword_only=True, text=True
            ),
            Parameter("created_by", "str | None", default="None", keyword_only=True, wire=False),
            Parameter("label", "Any", {"type": "string", "maxLength": MAX_TEXT}, extra=True),
            Parameter(
                "description", "Any", {"type": "string", "maxLength": MAX_DESCRIPTION}, extra=True
            ),
            Parameter(
                "status",
                "Any",
                {"enum": list(HUB_STATUSES), "default": "ACTIVE"},
                extra=True,
                choices=HUB_STATUSES,
            ),
        ),
        returns="Hub",
        status=201,
        summary="A new hub in the organization.",
        response=_json("The hub.", _component("Hub")),
        errors=(404,),
    ),
    _list(
        "pending_requests",
        "Token requests waiting for an admin's approval, oldest first (every organization's "
        "when ``organization_id`` is not given).",
        "/token-requests",
        "pending",
        ("PatRecord", "Token"),
        "The pending requests.",
        parameters=(
            Parameter(
                "organization_id", "str | None", {"type": "string"}, default="None", query=True
            ),
        ),
        summary="Token requests waiting for an admin, oldest first.",
    ),
    Operation(
        "request_token_via_ui",
        "The management UI path: an admin's token works at once, anyone else's pends; the "
        "answer holds the full token (``value``), shown this once.",
        "POST",
        "/token-requests",
        (
            _USER,
            Parameter(
                "name",
                "str",
                {
                    "type": "string",
                    "maxLength": 255,
                    "description": "Not blank; no control characters (the PAT naming rule).",
                    "pattern": "^[^\\x00-\\x1f\\x7f]*[^\\s\\x00-\\x1f\\x7f][^\\x00-\\x1f\\x7f]*$",
                },
                text=True,
            ),
            _ORGANIZATION,
        ),
        returns="CreatedToken",
        status=201,
        summary="The management-UI path; an admin's token works at once, anyone else's pends.",
        description="The answer's `value` is the full token, shown this once.",
        response=_json(
            "The stored token and its one-time value.",
            {
                "allOf": [
                    _component("Token"),
                    {
                        "type": "object",
                        "required": ["value"],
                        "properties": {"value": {"type": "string"}},
                    },
                ]
            },
        ),
        errors=(403, 404, 409),
    ),
    Operation(
        "approve_token_request",
        "An admin approves a pending token (as ``approver_id``, who must be an admin, when "
        "given); it becomes usable.",
        "POST",
        "/token-requests/approve",
        (_TOKEN, Parameter("approver_id", "str | None", _ID, default="None", text=True)),
        returns="PatRecord",
        summary="Approve a pending token (as approver_id, who must be an admin, when given).",
        response=_json("The approved token.", _component("Token")),
        errors=(403, 404),
    ),
    Operation(
        "reject_token_request",
        "An admin rejects a pending token; it disappears.",
        "POST",
        "/token-requests/reject",
        (_TOKEN,),
        done="rejected",
        echo="token_id",
        summary="Reject a pending token; it disappears.",
        response=_ref("Done"),
        errors=(404,),
    ),
    Operation(
        "profile_document",
        "The active profile (docs/profile.md) as a document of ``specs/profile.schema.json``.",
        "GET",
        "/profile",
        returns="dict[str, Any]",
        summary="The active profile, the fake's choices where the documentation is silent.",
        description=(
            "A document of specs/profile.schema.json (docs/profile.md), every field given: "
            "the shipped default, or the profile the fake was started with "
            "(patgate serve --profile, Fake(profile=...))."
        ),
        response=_json(
            "The profile.",
            {
                "type": "object",
                "required": [
                    "profile_version",
                    "delete_result",
                    "masked_token",
                    "refusals",
                    "client_token",
                    "hubs",
                    "pages",
                    "rate_limit",
                    "pat_name",
                    "listing_order",
                    "date_precision",
                    "last_used_date",
                ],
                "properties": {
                    "profile_version": {"const": 1},
                    **{
                        name: {"type": "object"}
                        for name in (
                            "delete_result",
                            "masked_token",
                            "refusals",
                            "client_token",
                            "hubs",
                            "pages",
                            "rate_limit",
                            "pat_name",
                        )
                    },
                    "listing_order": {"type": "string"},
                    "date_precision": {"type": "object"},
                    "last_used_date": {"type": "object"},
                },
            },
        ),
    ),
    Operation(
        "clock_now",
        "The fake's current instant (over HTTP: ISO 8601, UTC, milliseconds).",
        "GET",
        "/clock",
        returns="datetime",
        client_returns="str",
        client_answer='answer["now"]',
        answer="clock",
        summary="The fake's time.",
        response=_ref("Clock"),
    ),
    Operation(
        "advance_clock",
        "Move the fake's time forward (client tokens expire; PATs do not).",
        "POST",
        "/clock/advance",
        (
            Parameter(
                "seconds",
                "float",
                {
                    "type": "number",
                    "minimum": 0,
                    "maximum": MAX_CLOCK_MOVE,
                    "description": "At most ten years in one call.",
                },
                refusal=f"seconds must be from 0 to {MAX_CLOCK_MOVE} (ten years)",
            ),
        ),
        answer="clock",
        page=True,
        response=_ref("Clock"),
    ),
    Operation(
        "requests",
        'The request log, newest first, filtered by status (``429``, ``"4xx"``) and path.',
        "GET",
        "/requests",
        (
            _whole_query("page", 0, MAX_LOG_PAGE, 0),
            _whole_query("size", 1, MAX_LOG_PAGE_SIZE, 50),
            Parameter(
                "status",
                "int | str | None",
                {
                    "description": "A status code (`429`) or a class (`4xx`).",
                    "type": "string",
                    "pattern": "^([1-5]xx|[0-9]{1,3})$",
                },
                default="None",
                keyword_only=True,
                query=True,
                refusal="status must be a code such as 429 or a class such as 4xx",
            ),
            Parameter(
                "path",
                "str | None",
                {
                    "description": "Keeps the entries whose URL path contains it.",
                    "type": "string",
                },
                default="None",
                keyword_only=True,
                query=True,
            ),
        ),
        returns="RequestPage",
        answer="request_page",
        summary="The request log, newest first; a ring buffer of `capacity` entries.",
        response=_json("One page of the log.", _component("RequestPage")),
        errors=(400,),
    ),
    Operation(
        "clear_requests",
        "Empty the request log.",
        "DELETE",
        "/requests",
        done="cleared",
        response=_ref("Done"),
    ),
    Operation(
        "faults",
        "The fault rules and the rate-limit switch.",
        "GET",
        "/faults",
        python=False,
        response=_json(
            "The rules.",
            {
                "type": "object",
                "required": ["faults", "rate_limit"],
                "properties": {
                    "faults": {"type": "array", "items": _component("FaultRule")},
                    "rate_limit": {"type": "boolean"},
                },
            },
        ),
    ),
    Operation(
        "add_fault",
        'Add a fault rule (:mod:`patgate.fake.faults`): ``add_fault("token", status=503)``; '
        "it applies from the next request.",
        "POST",
        "/faults",
        (
            Parameter("endpoint", "str", {"type": "string"}, default='"any"'),
            *(
                Parameter(name, "Any", {"type": kind} if kind else {}, extra=True, text=text)
                for name, kind, text in _FAULT_FIELDS
            ),
        ),
        returns="FaultRule",
        status=201,
        summary="Add a fault rule; it applies from the next request.",
        response=_json("The rule, with its id.", _component("FaultRule")),
        body_schema_ref="FaultSpec",
        extra_name="spec",
    ),
    Operation(
        "remove_fault",
        "Remove one fault rule.",
        "POST",
        "/faults/remove",
        (Parameter("rule_id", "str", _ID, text=True, wire_name="id"),),
        done="removed",
        echo="rule_id",
        page=True,
        summary="Remove one rule.",
        response=_ref("Done"),
        errors=(404,),
    ),
    Operation(
        "clear_faults",
        "Remove every fault rule and switch the rate limit off.",
        "DELETE",
        "/faults",
        done="cleared",
        page=True,
        summary="Remove every rule and switch the rate limit off.",
        response=_ref("Done"),
    ),
    Operation(
        "set_rate_limit",
        """Switch the GraphQL rate limit (the profile's ``rate_limit``: 60 requests per minute
        per key by default) on or off. A key's minute starts at its first request, whatever
        the clock shows; ``Retry-After`` gives the seconds left of it, and
        :meth:`advance_clock` by that much ends it.""",
        "PUT",
        "/rate-limit",
        (Parameter("on", "bool", {"type": "boolean"}, wire_name="enabled"),),
        answer="rate_limit",
        page=True,
        summary="Switch the GraphQL rate limit (60 requests per minute per key) on or off.",
        response=_json(
            "The switch.",
            {
                "type": "object",
                "required": ["rate_limit"],
                "properties": {"rate_limit": {"type": "boolean"}},
            },
        ),
    ),
)
"""Every control operation, in the order the control API lists them."""


def by_name(name: str) -> Operation:
    """The operation called ``name``; ``KeyError`` for an unknown one."""
    for operation in OPERATIONS:
        if operation.name == name:
            return operation
    raise KeyError(name)
