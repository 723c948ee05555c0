"""``POST {graphql_url}``: GraphQL over HTTP for the PAT operations, ``viewer`` and introspection.

The body must be one JSON object ``{query, variables, operationName}`` sent as
``application/json``. A missing or invalid bearer is HTTP 401 (with a Bearer challenge); a
rule's refusal is HTTP 200 (or, under the profile's ``graphql.refusal_status: refusal``, the
refusal kind's status) with ``errors[].extensions.code`` and a null field; a request
that did not execute (bad JSON, bad document, limits) is HTTP 400.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from patgate.basics.reasons import Reason
from patgate.errors import DomainError
from patgate.fake.graph_outcome import Failure, GraphOutcome
from patgate.fake.profile import Profile
from patgate.wire.credentials import authenticate_bearer, bearer_challenge
from patgate.wire.endpoint import Call, Endpoint, Refusal, media_type, reason_of, with_reason
from patgate.wire.forms import parameter_names
from patgate.wire.messages import Headers, WireRequest, WireResponse, json_response
from patgate.wire.statuses import ErrorAnswer, HttpRefusal, answer_of

__all__ = ["FAILURE_CODES", "OPERATION_OF_FIELD", "GraphEndpoint", "graph_answer"]

JSON_TYPE = "application/json"

FAILURE_CODES: Mapping[Failure, str] = MappingProxyType(
    {
        Failure.QUERY_TOO_LARGE: "QUERY_TOO_LARGE",
        Failure.QUERY_TOO_DEEP: "QUERY_TOO_DEEP",
        Failure.PARSE: "GRAPHQL_PARSE_FAILED",
        Failure.VALIDATION: "GRAPHQL_VALIDATION_FAILED",
        Failure.INPUT: "BAD_USER_INPUT",
    }
)
"""``extensions.code`` of a request that did not execute; domain errors take theirs from
:data:`~patgate.wire.statuses.ANSWER_BY_ERROR`."""


def graph_answer(
    outcome: GraphOutcome, profile: Profile | None = None
) -> tuple[int, dict[str, Any]]:
    """The HTTP status and body of a GraphQL result.

    An executed request answers 200 with ``data`` (a rule's refusal is an entry of
    ``errors`` with ``extensions.code`` and a null field; with the profile's
    ``graphql.refusal_status: refusal``, the first refusal's ``refusals.<kind>.status``);
    one that did not execute answers 400 with ``errors`` only. A rule's
    ``extensions.code`` and message follow ``profile``'s ``refusals`` (no code: no
    ``extensions``), the message its ``refusal_messages`` of the operation first.
    """
    errors = []
    status = 200
    for problem in outcome.problems:
        error = dict(problem.error)
        cause = problem.cause
        if isinstance(cause, DomainError):
            answer = answer_of(cause, profile)
            if answer.code is not None:
                error["extensions"] = {"code": answer.code}
            message = _message(answer, problem.field, profile)
            if message is not None:
                error["message"] = message
            if status == 200 and profile is not None:
                status = answer.status if profile.graphql_refusal_status == "refusal" else 200
        elif cause is not None:
            error["extensions"] = {"code": FAILURE_CODES[cause]}
        errors.append(error)
    if not outcome.executed:
        return 400, {"errors": errors}
    body: dict[str, Any] = {"errors": errors} if errors else {}
    body["data"] = outcome.data
    return status, body


OPERATION_OF_FIELD: Mapping[str, str] = MappingProxyType(
    {
        "createPersonalAccessToken": "create_token",
        "personalAccessTokens": "list_tokens",
        "deletePersonalAccessToken": "delete_token",
    }
)
"""The operation ``refusal_messages`` names a refused field by (the schema's field name)."""


def _message(answer: ErrorAnswer, field: str | None, profile: Profile | None) -> str | None:
    """The message of a refusal of ``field``: the operation's own, else the kind's."""
    if profile is not None and field is not None and answer.kind is not None:
        by_kind = profile.refusal_messages.get(OPERATION_OF_FIELD.get(field, ""))
        if by_kind is not None and answer.kind in by_kind:
            return by_kind[answer.kind]
    return answer.message


def _problem_reason(outcome: GraphOutcome) -> Reason:
    """Why a GraphQL request was refused (its first problem): a rule's own reason, else the
    executor's message (about the document, never a value sent)."""
    problem = outcome.problems[0]
    cause = problem.cause
    if isinstance(cause, DomainError):
        return reason_of(cause)
    message = str(problem.error.get("message", "the request was refused"))[:300]
    return Reason("request-invalid", message)


def _bad_request(message: str) -> HttpRefusal:
    return HttpRefusal(400, message, code="BAD_REQUEST")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Built once: json.loads with any keyword builds a new decoder per call.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        # What json.loads does with bytes: detect UTF-8, -16 or -32, keep lone surrogates
        # (a body starting with "{" and a second byte other than NUL is UTF-8).
        encoding = "utf-8" if body[:1] == b"{" and body[1:2] not in (b"\x00", b"") else None
        text = body.decode(encoding or json.detect_encoding(body), "surrogatepass")
        payload = _DECODER.decode(text)
    except RecursionError:
        # The C decoder guards its own recursion; the message must not become a 500.
        raise _bad_request("the JSON body is nested too deeply") from None
    except ValueError:
        raise _bad_request("the body is not valid JSON") from None
    if isinstance(payload, list):
        raise _bad_request("batched requests are not supported: send one JSON object")
    if not isinstance(payload, dict):
        raise _bad_request("the body must be a JSON object")
    return payload


def _graph_request(payload: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str | None]:
    query = payload.get("query")
    if not isinstance(query, str):
        raise _bad_request("query must be a string")
    variables = payload.get("variables")
    if variables is not None and not isinstance(variables, dict):
        raise _bad_request("variables must be an object or null")
    operation_name = payload.get("operationName")
    if operation_name is not None and not isinstance(operation_name, str):
        raise _bad_request("operationName must be a string or null")
    return query, variables, operation_name


@functools.cache
def _executor() -> Callable[..., GraphOutcome]:
    # Imported on first use: graphql-core is the fake's largest import, and a test that
    # never sends GraphQL should not pay for it.
    from patgate.fake.graph_executor import execute_graph_request

    return execute_graph_request


class GraphEndpoint(Endpoint):
    """Runs GraphQL requests as the bearer's principal."""

    methods = ("POST",)

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """Content type, then bearer, then body, then the executor: the first refusal wins."""
        if media_type(request) != JSON_TYPE:
            raise HttpRefusal(415, f"the body must be {JSON_TYPE}", code="UNSUPPORTED_MEDIA_TYPE")
        principal = authenticate_bearer(self.deployment, request, parameter_names(call.query))
        document, variables, operation_name = _graph_request(_json_object(request.body))
        outcome = _executor()(self.deployment, principal, document, variables, operation_name)
        for problem in outcome.problems:
            if isinstance(problem.cause, DomainError):
                problem.cause.answered()
        answer = json_response(*graph_answer(outcome, self.deployment.profile))
        return with_reason(answer, _problem_reason(outcome)) if outcome.problems else answer

    def render(
        self, status: int, code: str, message: str, headers: Headers, error: Refusal
    ) -> WireResponse:
        """``{"errors": [{message, extensions.code}]}``, with a Bearer challenge on 401."""
        entry: dict[str, Any] = {"message": message}
        if code:
            entry["extensions"] = {"code": code.upper()}
        body = {"errors": [entry]}
        return json_response(status, body, (*bearer_challenge(status, error), *headers))
