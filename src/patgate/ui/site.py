"""The management page as one handler: its routes, its forms, and its answers.

``ManagementUi(operations, ui_url)`` answers every :class:`WireRequest` under ``ui_url``
(the wire app hands them over). Pages are rendered on the server; a form post is checked
for cross-site forgery, then carried out through :class:`~patgate.ui.operations.UiOperations`
and answered with a redirect to the page that shows the result (post, redirect, get), except
a create, whose answer is the one-time reveal of the value: never stored, never redirected.

Every refusal is a 4xx page naming the problem: a rule of the fake (the domain's message and
status), a malformed form, a forged post, an unknown path or method.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from urllib.parse import quote, urlsplit

from patgate.errors import DomainError, InvalidRequest
from patgate.fake.clock import format_timestamp
from patgate.fake.model import Role
from patgate.ui import inspector_page, pages
from patgate.ui.markup import Document, View, render_document
from patgate.ui.operations import Identity, UiOperations
from patgate.ui.session import CSRF_COOKIE, USER_COOKIE, CsrfGuard, Session
from patgate.wire.endpoint import media_type
from patgate.wire.forms import parse_form
from patgate.wire.messages import WireRequest, WireResponse
from patgate.wire.statuses import HttpRefusal, status_of

__all__ = ["MAX_FORM_BYTES", "ManagementUi"]

MAX_FORM_BYTES = 64 * 1024
"""A form post above 64 KiB is refused with 413 before it is read."""
MAX_ADVANCE_SECONDS = 10 * 366 * 86400
"""The clock moves at most about ten years per step."""
LATEST_REQUESTS = 20

_SECURITY_HEADERS = (
    ("Cache-Control", "no-store"),
    (
        "Content-Security-Policy",
        "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; "
        "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
)
_ASSETS = {
    "/assets/page.css": "text/css; charset=utf-8",
    "/assets/page.js": "text/javascript; charset=utf-8",
    "/assets/icon.svg": "image/svg+xml",
}

_DONE = {
    "pick": "Pick who you are first.",
    "signed-in": "You now act as this user.",
    "deleted": "The token was deleted.",
    "approved": "The request was approved; the token works now.",
    "rejected": "The request was rejected.",
    "removed": "The user was removed from the organization.",
    "restored": "The user is back in the organization.",
    "role": "The role was changed.",
    "clock": "The clock moved forward.",
}

Handler = Callable[["_Call"], "Document | WireResponse"]


class _Call:
    """One request to the page, with its session, form and view."""

    def __init__(self, ui: ManagementUi, request: WireRequest, path: str, query: str) -> None:
        self.ui = ui
        self.request = request
        self.path = path
        self.session = Session.of(request)
        self.query = parse_form(query, "the query string")
        self.identity = self._identity()
        self.view = View(ui.base_path, ui.csrf.field_value(self.session), self.identity)
        self._form: dict[str, str] | None = None

    def _identity(self) -> Identity | None:
        if self.session.user_id is None:
            return None
        try:
            return self.ui.operations.identity(self.session.user_id)
        except DomainError:
            return None  # a stale cookie: the person picks again

    def form(self) -> dict[str, str]:
        """The posted form, checked against forgery; 415, 413 or 400 when it is not one."""
        if self._form is None:
            if media_type(self.request) != "application/x-www-form-urlencoded":
                raise HttpRefusal(415, "send the form as a web browser does", code="MEDIA_TYPE")
            form = parse_form(self.request.body)
            self.ui.csrf.check(self.request, self.session, form)
            self._form = form
        return self._form

    def field(self, name: str) -> str:
        """A required form field; 400 names it when it is missing."""
        value = self.form().get(name)
        if value is None:
            raise InvalidRequest(f"the form needs a {name!r} field", rule_id="")
        return value

    def person(self) -> Identity:
        """The picked user, or a redirect to the picker."""
        if self.identity is None:
            raise _Redirect("/?done=pick")
        return self.identity

    def message(self) -> str:
        """The text for ``?done=`` after a redirect."""
        return _DONE.get(self.query.get("done", ""), "")


class _Redirect(Exception):
    def __init__(self, location: str, cookies: tuple[str, ...] = ()) -> None:
        super().__init__(location)
        self.location = location
        self.cookies = cookies


class ManagementUi:
    """The management page of one fake, served under ``ui_url``."""

    def __init__(self, operations: UiOperations, ui_url: str) -> None:
        parts = urlsplit(ui_url)
        self.operations = operations
        self.ui_url = ui_url.rstrip("/")
        self.base_path = parts.path.rstrip("/")
        self.csrf = CsrfGuard(f"{parts.scheme}://{parts.netloc}".lower())
        self._routes: dict[str, dict[str, Handler]] = {
            "/": {"GET": _who},
            "/session": {"POST": _pick},
            "/tokens": {"GET": _tokens, "POST": _create},
            "/tokens/delete": {"GET": _confirm_delete, "POST": _delete},
            "/approvals": {"GET": _approvals, "POST": _decide},
            "/inspector": {"GET": _inspector},
            "/inspector/requests": {"GET": _requests},
            "/inspector/users": {"POST": _change_user},
            "/inspector/clock": {"POST": _advance},
        }

    def serves(self, canonical: str) -> bool:
        """Whether the canonical URL ``canonical`` lies under the page."""
        return canonical == self.ui_url or canonical.startswith(self.ui_url + "/")

    def __call__(self, request: WireRequest) -> WireResponse:
        """Answer one request under the page's URL."""
        parts = urlsplit(request.url)
        path = parts.path[len(self.base_path) :] or "/"
        if path in _ASSETS:
            return _asset(path)
        if len(request.body) > MAX_FORM_BYTES:
            return self._refusal(request, 413, "the form is larger than 64 KiB")
        methods = self._routes.get(path)
        if methods is None:
            return self._refusal(request, 404, "the management page has no such address")
        handler = methods.get(request.method)
        if handler is None:
            allow = ", ".join(methods)
            response = self._refusal(request, 405, f"this address answers {allow} only")
            return WireResponse(405, (*response.headers, ("Allow", allow)), response.body)
        call: _Call | None = None
        try:
            call = _Call(self, request, path, parts.query)
            return self._send(call, handler(call))
        except _Redirect as redirect:
            headers = [("Location", self.base_path + redirect.location)]
            headers += [("Set-Cookie", cookie) for cookie in redirect.cookies]
            return WireResponse(303, (*_SECURITY_HEADERS, *headers))
        except DomainError as error:
            return self._refusal(request, status_of(error), error.message, call)
        except HttpRefusal as refusal:
            return self._refusal(request, refusal.status, refusal.message, call)

    def cookie(self, name: str, value: str, *, max_age: int | None = None) -> str:
        """A ``Set-Cookie`` value scoped to the page."""
        age = f"; Max-Age={max_age}" if max_age is not None else ""
        return f"{name}={value}; Path={self.base_path or '/'}; HttpOnly; SameSite=Strict{age}"

    def _send(self, call: _Call, answer: Document | WireResponse) -> WireResponse:
        if isinstance(answer, WireResponse):
            return answer
        body = render_document(call.view, answer).encode("utf-8")
        headers = [("Content-Type", "text/html; charset=utf-8"), *_SECURITY_HEADERS]
        headers += answer.headers
        if call.session.fresh_csrf:
            headers.append(("Set-Cookie", self.cookie(CSRF_COOKIE, call.session.csrf_value)))
        return WireResponse(answer.status, tuple(headers), body)

    def _refusal(
        self, request: WireRequest, status: int, message: str, call: _Call | None = None
    ) -> WireResponse:
        if call is None:
            # The request could not even be read (a bad query string, say): a bare view.
            session = Session.of(request)
            view = View(self.base_path, self.csrf.field_value(session), None)
            fresh = session.fresh_csrf
            csrf_value = session.csrf_value
        else:
            view, fresh, csrf_value = call.view, call.session.fresh_csrf, call.session.csrf_value
        body = render_document(view, pages.error(view, status, message)).encode("utf-8")
        headers = [("Content-Type", "text/html; charset=utf-8"), *_SECURITY_HEADERS]
        if fresh:
            headers.append(("Set-Cookie", self.cookie(CSRF_COOKIE, csrf_value)))
        return WireResponse(status, tuple(headers), body)


def _asset(path: str) -> WireResponse:
    name = path.rpartition("/")[2]
    body = resources.files("patgate.ui").joinpath("assets").joinpath(name).read_bytes()
    return WireResponse(
        200,
        (("Content-Type", _ASSETS[path]), ("Cache-Control", "no-cache"), _SECURITY_HEADERS[2]),
        body,
    )


# -- who you are ---------------------------------------------------------------------------


def _who(call: _Call) -> Document:
    return pages.pick_user(call.view, call.ui.operations.memberships(), call.message())


def _pick(call: _Call) -> Document:
    identity = call.ui.operations.identity(call.field("user"))
    cookie = call.ui.cookie(USER_COOKIE, quote(identity.user.id, safe="=+/"))
    raise _Redirect("/tokens?done=signed-in", (cookie,))


# -- tokens --------------------------------------------------------------------------------


def _tokens(call: _Call) -> Document:
    operations = call.ui.operations
    identity = call.person()
    return pages.tokens(
        call.view, operations.tokens(identity), operations.token_cap(), message=call.message()
    )


def _create(call: _Call) -> Document:
    operations = call.ui.operations
    identity = call.person()
    name = call.form().get("name", "")
    try:
        created = operations.request_token(identity, name)
    except DomainError as error:
        # The fake's own refusal (the cap, a bad name) beside the form, the name kept.
        return pages.tokens(
            call.view,
            operations.tokens(identity),
            operations.token_cap(),
            problem=error.message,
            status=status_of(error),
            name=name,
        )
    return pages.reveal(call.view, created.record, created.value)


def _confirm_delete(call: _Call) -> Document:
    identity = call.person()
    token_id = call.query.get("id", "")
    return pages.confirm_delete(call.view, call.ui.operations.find_token(identity, token_id))


def _delete(call: _Call) -> Document:
    call.ui.operations.delete_token(call.person(), call.field("id"))
    raise _Redirect("/tokens?done=deleted")


# -- approvals -----------------------------------------------------------------------------


def _approvals(call: _Call) -> Document:
    pending = call.ui.operations.pending(call.person())
    return pages.approvals(call.view, pending, call.message())


def _decide(call: _Call) -> Document:
    identity = call.person()
    token_id = call.field("id")
    decision = call.field("decision")
    if decision == "approve":
        call.ui.operations.approve(identity, token_id)
        raise _Redirect("/approvals?done=approved")
    if decision == "reject":
        call.ui.operations.reject(identity, token_id)
        raise _Redirect("/approvals?done=rejected")
    raise InvalidRequest("decision must be approve or reject", rule_id="")


# -- inspector -----------------------------------------------------------------------------


def _inspector(call: _Call) -> Document:
    operations = call.ui.operations
    return inspector_page.inspector(
        call.view,
        operations.memberships(),
        format_timestamp(operations.now()),
        operations.latest_requests(LATEST_REQUESTS, hidden_prefix=call.ui.ui_url),
        operations.active_faults(),
        operations.rate_limit(),
        call.message(),
    )


def _requests(call: _Call) -> WireResponse:
    entries = call.ui.operations.latest_requests(LATEST_REQUESTS, hidden_prefix=call.ui.ui_url)
    body = inspector_page.requests_table(call.view, entries).encode("utf-8")
    headers = (("Content-Type", "text/html; charset=utf-8"), *_SECURITY_HEADERS)
    return WireResponse(200, headers, body)


def _change_user(call: _Call) -> Document:
    operations = call.ui.operations
    user_id = call.field("user")
    organization_id = call.field("organization")
    action = call.field("action")
    if action == "remove":
        operations.remove_user(user_id, organization_id)
        raise _Redirect("/inspector?done=removed")
    if action == "restore":
        operations.restore_user(user_id, organization_id)
        raise _Redirect("/inspector?done=restored")
    if action == "role":
        try:
            role = Role(call.field("role"))
        except ValueError:
            raise InvalidRequest(
                f"role must be one of {', '.join(r.value for r in Role)}", rule_id=""
            ) from None
        operations.set_role(user_id, organization_id, role)
        raise _Redirect("/inspector?done=role")
    raise InvalidRequest("action must be remove, restore or role", rule_id="")


def _advance(call: _Call) -> Document:
    text = call.field("seconds").strip()
    whole = text.isascii() and text.isdigit() and len(text) <= 10
    if not whole or not 1 <= int(text) <= MAX_ADVANCE_SECONDS:
        raise InvalidRequest(
            f"seconds must be a whole number from 1 to {MAX_ADVANCE_SECONDS}", rule_id=""
        )
    call.ui.operations.advance_clock(int(text))
    raise _Redirect("/inspector?done=clock")
