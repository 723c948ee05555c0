"""``POST {auth_url}/oauth/token``: the OAuth 2.0 client-credentials grant.

Client credentials come in the form body or as HTTP Basic, never both and never in the URL.
Answers carry ``Cache-Control: no-store`` and ``Pragma: no-cache``; errors are the OAuth
body ``{"error": code, "error_description": text}`` whose text is fixed by the fake and
never echoes what was sent, so an unknown id and a wrong secret answer byte for byte alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from patgate.basics.reasons import Reason
from patgate.errors import DomainError, InvalidRequest
from patgate.fake.answer_shapes import render
from patgate.wire.credentials import basic_credentials
from patgate.wire.endpoint import Call, Endpoint, Refusal, media_type
from patgate.wire.forms import parameter_names, parse_form
from patgate.wire.messages import Headers, WireRequest, WireResponse, json_response
from patgate.wire.statuses import answer_of

__all__ = ["TokenEndpoint"]

FORM_TYPE = "application/x-www-form-urlencoded"
NO_STORE: Headers = (("Cache-Control", "no-store"), ("Pragma", "no-cache"))
_OAUTH_CODES = frozenset(
    {"invalid_request", "invalid_client", "invalid_grant", "unauthorized_client"}
    | {"unsupported_grant_type", "invalid_scope"}
)


def _grant_type_missing(form: Mapping[str, str], basic: bool) -> Reason:
    """grant_type missing, naming the fields that did come (names only, never values)."""
    names = [name[:40] for name in sorted(form)][:12]
    fields = ", ".join(names) if names else "none"
    also = "; client credentials as HTTP Basic" if basic else ""
    return Reason("grant-type-missing", f"grant_type missing (fields received: {fields}{also})")


def _description(message: str) -> str:
    # RFC 6749 5.2 allows %x20-21 / %x23-5B / %x5D-7E only: no quote, backslash or non-ASCII.
    return "".join(ch for ch in message if " " <= ch <= "~" and ch not in '"\\')


class TokenEndpoint(Endpoint):
    """Issues client-credential tokens from the fake's deployment."""

    methods = ("POST",)
    profiled = False
    operation = "token"

    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        """A token for valid client credentials, sent as a form or HTTP Basic."""
        received = media_type(request)
        if received != FORM_TYPE:
            raise InvalidRequest(
                f"the body must be {FORM_TYPE}",
                reason=Reason(
                    "token-request-not-form",
                    "token requests must be form-encoded "
                    f"(received {received[:60] or 'no Content-Type'})",
                ),
            )
        if "client_secret" in parameter_names(call.query):
            raise InvalidRequest(
                "client credentials must not be sent in the URL",
                reason=Reason("credentials-in-url", "client_secret was sent in the URL's query"),
            )
        form = parse_form(request.body)
        client_id = form.get("client_id")
        client_secret = form.get("client_secret")
        basic = basic_credentials(request)
        if basic is not None:
            if client_id is not None or client_secret is not None:
                raise InvalidRequest(
                    "send client credentials either as HTTP Basic or in the form",
                    reason=Reason(
                        "credentials-twice",
                        "client credentials were sent both as HTTP Basic and in the form",
                    ),
                )
            client_id, client_secret = basic[0] or None, basic[1] or None
        try:
            issued = self.deployment.issue_client_token(
                client_id, client_secret, form.get("grant_type")
            )
        except InvalidRequest as refused:
            if refused.reason is not None and refused.reason.code == "grant-type-missing":
                refused.reason = _grant_type_missing(form, basic is not None)
            raise
        profile = self.deployment.profile
        body: dict[str, Any] = {"access_token": issued.access_token}
        if profile.token_type is not None:  # null: the deployment sends no token_type
            body["token_type"] = profile.token_type
        body["expires_in"] = issued.expires_in
        body["session_expires_in"] = issued.session_expires_in
        shape = profile.shapes.get("token")
        if shape is None:
            return json_response(200, body, NO_STORE)
        if "body" in shape:
            body = render(body, shape["body"])
        return json_response(200, body, NO_STORE, shape.get("content_type", "application/json"))

    def render(
        self, status: int, code: str, message: str, headers: Headers, error: Refusal
    ) -> WireResponse:
        """The OAuth 2.0 error body; codes outside RFC 6749's list become invalid_request."""
        content_type = "application/json"
        if isinstance(error, DomainError):
            code = answer_of(error).oauth
        oauth_code = code if code in _OAUTH_CODES else "invalid_request"
        body: dict[str, Any] = {"error": oauth_code, "error_description": _description(message)}
        shapes = self.deployment.profile.shapes
        if shapes and isinstance(error, DomainError):
            shape = shapes.get(f"refusal.token.{answer_of(error, self.deployment.profile).kind}")
            if shape is not None:
                if "body" in shape:
                    body = render(body, shape["body"])
                content_type = shape.get("content_type", content_type)
        return json_response(status, body, (*NO_STORE, *headers), content_type)
