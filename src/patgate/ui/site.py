"""The management page as one handler: its routes, its forms, and its answers.

``ManagementUi(operations, ui_url, access)`` answers every :class:`WireRequest` under
``ui_url`` (the wire app hands them over). First the ``Host`` header and the sign-in are
checked (:mod:`patgate.ui.access`); then pages are rendered on the server, and a form post
is checked for cross-site forgery, carried out through
:class:`~patgate.ui.operations.UiOperations` and answered with a redirect (post, redirect,
get): a reload or the back button never repeats an action. What the answer must say (a
notice, a new token's value) is kept behind a one-time handle (:mod:`patgate.ui.one_time_handles`).

Every refusal is a 4xx page saying what happened and what to do next: a rule of the fake,
a malformed form, a forged post, an unknown path or method.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

from patgate.errors import DomainError, InvalidRequest
from patgate.fake.model import Role
from patgate.ui import inspector_page, pages
from patgate.ui.access import KEY_PARAMETER, UiAccess
from patgate.ui.markup import Document, View, render_document
from patgate.ui.one_time_handles import Notice, OneTimeStore, Reveal
from patgate.ui.operations import Identity, RequestFilter, UiOperations
from patgate.ui.readable_text import plain_duration, readable_time
from patgate.ui.session import CSRF_COOKIE, USER_COOKIE, CsrfGuard, Session, request_cookies
from patgate.wire.endpoint import media_type
from patgate.wire.forms import parse_form
from patgate.wire.messages import WireRequest, WireResponse
from patgate.wire.statuses import HttpRefusal, status_of

__all__ = ["MAX_FORM_BYTES", "ManagementUi"]

MAX_FORM_BYTES = 64 * 1024
"""A form post above 64 KiB is refused with 413 before it is read."""
MAX_ADVANCE_SECONDS = 10 * 366 * 86400
"""The clock moves at most about ten years per step."""
LATEST_REQUESTS = 50
"""Requests the inspector lists per view (the filters choose which)."""

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

    @property
    def owner(self) -> str:
        """Whose one-time handles this request may take: the picked user, or nobody."""
        return self.identity.user.id if self.identity is not None else ""

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
        """The picked user, or a redirect to the picker that says why."""
        if self.identity is None:
            if self.session.user_id is not None:
                text = "The user you acted as no longer exists. Pick who you are again."
            else:
                text = "Pick who you are first: the token pages act as one user."
            raise _Redirect("/", notice=Notice(text, "info"))
        return self.identity

    def notice(self) -> Notice | None:
        """The notice the redirect to this page carries, once (a reload shows none)."""
        handle = self.query.get("note", "")
        return self.ui.handles.take_notice(self.owner, handle) if handle else None


class _Redirect(Exception):
    def __init__(
        self,
        location: str,
        cookies: tuple[str, ...] = (),
        *,
        notice: Notice | None = None,
        owner: str | None = None,
    ) -> None:
        super().__init__(location)
        self.location = location
        self.cookies = cookies
        self.notice = notice
        self.owner = owner
        """Whose page shows the notice, when not the user acting now (a user just picked)."""


class ManagementUi:
    """The management page of one fake, served under ``ui_url``."""

    def __init__(self, operations: UiOperations, ui_url: str, access: UiAccess) -> None:
        parts = urlsplit(ui_url)
        self.operations = operations
        self.ui_url = ui_url.rstrip("/")
        self.base_path = parts.path.rstrip("/")
        self.access = access
        self.csrf = CsrfGuard(access.hosts)
        self.handles = OneTimeStore()
        self._routes: dict[str, dict[str, Handler]] = {
            "/": {"GET": _who},
            "/sign-in": {"GET": _signed_in_already, "POST": _signed_in_already},
            "/session": {"POST": _pick},
            "/tokens": {"GET": _tokens, "POST": _create},
            "/tokens/created": {"GET": _created},
            "/tokens/delete": {"GET": _confirm_delete, "POST": _delete},
            "/approvals": {"GET": _approvals, "POST": _decide},
            "/inspector": {"GET": _inspector},
            "/inspector/requests": {"GET": _requests},
            "/inspector/request": {"GET": _request_detail},
            "/inspector/users": {"POST": _change_user},
            "/inspector/users/remove": {"GET": _confirm_remove},
            "/inspector/clock": {"POST": _advance},
            "/inspector/faults": {"POST": _change_faults},
            "/inspector/reset": {"GET": _confirm_reset, "POST": _reset},
        }

    def serves(self, canonical: str) -> bool:
        """Whether the canonical URL ``canonical`` lies under the page."""
        return canonical == self.ui_url or canonical.startswith(self.ui_url + "/")

    def __call__(self, request: WireRequest) -> WireResponse:
        """Answer one request under the page's URL."""
        if not self.access.host_allowed(request):
            return _plain(
                421,
                "This page answers only to the names of its own server (localhost, 127.0.0.1, "
                "or the address patgate serve printed).\n",
            )
        parts = urlsplit(request.url)
        path = parts.path[len(self.base_path) :] or "/"
        if path in _ASSETS:
            return _asset(path)
        if len(request.body) > MAX_FORM_BYTES:
            return self._refusal(request, 413, "the form is larger than 64 KiB")
        if not self.access.signed_in(request_cookies(request)):
            return self._sign_in(request, path, parts.query)
        if request.method == "GET" and _carries_key(parts.query):
            # Signed in already: take the key out of the address bar before anything is
            # shown there (an unknown address or a malformed query string too).
            return self._redirect(_Redirect(_without_key_text(path, parts.query)), "")
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
            if KEY_PARAMETER in call.query:
                # Signed in already: take the key out of the address bar.
                raise _Redirect(_without_key(path, call.query))
            return self._send(call, handler(call))
        except _Redirect as redirect:
            return self._redirect(redirect, call.owner if call is not None else "")
        except DomainError as error:
            error.answered()
            return self._refusal(request, status_of(error), error.message, call, error)
        except HttpRefusal as refusal:
            return self._refusal(request, refusal.status, refusal.message, call)

    def _sign_in(self, request: WireRequest, path: str, query_text: str) -> WireResponse:
        """The answer to a browser that is not signed in: sign it in, or ask for the key."""
        call: _Call | None = None
        try:
            call = _Call(self, request, path, query_text)
            key = call.query.get(KEY_PARAMETER)
            if request.method == "GET" and key is not None:
                if self.access.key_matches(key):
                    raise _Redirect(_without_key(path, call.query), (self._key_cookie(),))
                return self._send(call, pages.sign_in(call.view, wrong=True))
            if path == "/sign-in" and request.method == "POST":
                if self.access.key_matches(call.field("key")):
                    raise _Redirect("/", (self._key_cookie(),))
                return self._send(call, pages.sign_in(call.view, wrong=True))
            return self._send(call, pages.sign_in(call.view))
        except _Redirect as redirect:
            return self._redirect(redirect, "")
        except DomainError as error:
            error.answered()
            return self._refusal(request, status_of(error), error.message, call, error)
        except HttpRefusal as refusal:
            return self._refusal(request, refusal.status, refusal.message, call)

    def _key_cookie(self) -> str:
        return self.cookie(self.access.cookie_name, self.access.cookie_value)

    def _redirect(self, redirect: _Redirect, owner: str) -> WireResponse:
        location, hash_mark, fragment = (self.base_path + redirect.location).partition("#")
        if redirect.notice is not None:
            handle = self.handles.put(redirect.owner or owner, redirect.notice)
            location += ("&" if "?" in location else "?") + urlencode({"note": handle})
        location += hash_mark + fragment
        headers = [("Location", location)]
        headers += [("Set-Cookie", cookie) for cookie in redirect.cookies]
        return WireResponse(303, (*_SECURITY_HEADERS, *headers))

    def cookie(self, name: str, value: str, *, max_age: int | None = None) -> str:
        """A ``Set-Cookie`` value scoped to the page."""
        age = f"; Max-Age={max_age}" if max_age is not None else ""
        return f"{name}={value}; Path={self.base_path or '/'}; HttpOnly; SameSite=Strict{age}"

    def _send(self, call: _Call, answer: Document | WireResponse) -> WireResponse:
        if isinstance(answer, WireResponse):
            return answer
        body = _utf8(render_document(call.view, answer))
        headers = [("Content-Type", "text/html; charset=utf-8"), *_SECURITY_HEADERS]
        headers += answer.headers
        if call.session.fresh_csrf:
            headers.append(("Set-Cookie", self.cookie(CSRF_COOKIE, call.session.csrf_value)))
        return WireResponse(answer.status, tuple(headers), body)

    def _refusal(
        self,
        request: WireRequest,
        status: int,
        message: str,
        call: _Call | None = None,
        error: DomainError | None = None,
    ) -> WireResponse:
        if call is None:
            # The request could not even be read (a bad query string, say): a bare view.
            session = Session.of(request)
            view = View(self.base_path, self.csrf.field_value(session), None)
            fresh = session.fresh_csrf
            csrf_value = session.csrf_value
        else:
            view, fresh, csrf_value = call.view, call.session.fresh_csrf, call.session.csrf_value
        document = pages.error(view, status, message, error)
        body = _utf8(render_document(view, document))
        headers = [("Content-Type", "text/html; charset=utf-8"), *_SECURITY_HEADERS]
        if fresh:
            headers.append(("Set-Cookie", self.cookie(CSRF_COOKIE, csrf_value)))
        return WireResponse(status, tuple(headers), body)


def _utf8(page: str) -> bytes:
    """The page as UTF-8; a lone surrogate (a stored name the domain let through) becomes
    "?" instead of failing the whole answer."""
    return page.encode("utf-8", "replace")


def _carries_key(query: str) -> bool:
    return any(name == KEY_PARAMETER for name, _ in parse_qsl(query, keep_blank_values=True))


def _without_key_text(path: str, query: str) -> str:
    pairs = parse_qsl(query, keep_blank_values=True)
    rest = [(name, value) for name, value in pairs if name != KEY_PARAMETER]
    return path + ("?" + urlencode(rest) if rest else "")


def _without_key(path: str, query: dict[str, str]) -> str:
    rest = {name: value for name, value in query.items() if name != KEY_PARAMETER}
    return path + ("?" + urlencode(rest) if rest else "")


def _plain(status: int, text: str) -> WireResponse:
    headers = (("Content-Type", "text/plain; charset=utf-8"), *_SECURITY_HEADERS)
    return WireResponse(status, headers, text.encode("utf-8"))


def _asset(path: str) -> WireResponse:
    name = path.rpartition("/")[2]
    body = resources.files("patgate.ui").joinpath("assets").joinpath(name).read_bytes()
    return WireResponse(
        200,
        (("Content-Type", _ASSETS[path]), ("Cache-Control", "no-cache"), _SECURITY_HEADERS[2]),
        body,
    )


def _signed_in_already(call: _Call) -> Document:
    raise _Redirect("/")


# -- who you are ---------------------------------------------------------------------------


def _who(call: _Call) -> Document:
    return pages.pick_user(call.view, call.ui.operations.memberships(), call.notice())


def _pick(call: _Call) -> Document:
    identity = call.ui.operations.identity(call.field("user"))
    cookie = call.ui.cookie(USER_COOKIE, quote(identity.user.id, safe="=+/"))
    organization = identity.organization.name if identity.organization else "no organization"
    text = (
        f"You now act as {identity.user.name} ({pages.role_name(identity.role)}, {organization})."
    )
    # The notice belongs to the user picked: the redirect's page reads the new cookie.
    raise _Redirect("/tokens", (cookie,), notice=Notice(text), owner=identity.user.id)


# -- tokens --------------------------------------------------------------------------------


def _tokens(call: _Call) -> Document:
    operations = call.ui.operations
    identity = call.person()
    return pages.tokens(
        call.view, operations.tokens(identity), operations.token_cap(), notice=call.notice()
    )


def _create(call: _Call) -> Document:
    operations = call.ui.operations
    identity = call.person()
    name = call.form().get("name", "")
    try:
        created = operations.request_token(identity, name)
    except DomainError as error:
        error.answered()
        # Nothing changed: the refusal is shown beside the form, with the name kept.
        return pages.tokens(
            call.view,
            operations.tokens(identity),
            operations.token_cap(),
            problem=error,
            status=status_of(error),
            name=name,
        )
    handle = call.ui.handles.put(identity.user.id, Reveal(created.record, created.value))
    raise _Redirect("/tokens/created?" + urlencode({"handle": handle}))


def _created(call: _Call) -> Document:
    identity = call.person()
    reveal = call.ui.handles.take_reveal(identity.user.id, call.query.get("handle", ""))
    if reveal is None:
        return pages.reveal_gone(call.view)
    if reveal.value is None:
        return pages.reveal_shown(call.view, reveal.record)
    return pages.reveal(call.view, reveal.record, reveal.value)


def _confirm_delete(call: _Call) -> Document:
    identity = call.person()
    token_id = call.query.get("id", "")
    return pages.confirm_delete(call.view, call.ui.operations.find_token(identity, token_id))


def _delete(call: _Call) -> Document:
    record = call.ui.operations.delete_token(call.person(), call.field("id"))
    text = f"The token “{record.name}” ({record.masked}) was deleted; it stops working at once."
    raise _Redirect("/tokens", notice=Notice(text))


# -- approvals -----------------------------------------------------------------------------


def _approvals(call: _Call) -> Document:
    pending = call.ui.operations.pending(call.person())
    return pages.approvals(call.view, pending, call.notice())


def _decide(call: _Call) -> Document:
    identity = call.person()
    operations = call.ui.operations
    token_id = call.field("id")
    decision = call.field("decision")
    if decision not in ("approve", "reject"):
        raise InvalidRequest("the decision must be approve or reject", rule_id="")
    request = operations.pending_request(identity, token_id)
    who = request.requester.name
    name = request.record.name
    if decision == "approve":
        operations.approve(identity, token_id)
        text = f"You approved “{name}” for {who}; the token works now."
    else:
        operations.reject(identity, token_id)
        text = f"You rejected “{name}” for {who}; the request is gone and never worked."
    raise _Redirect("/approvals", notice=Notice(text))


# -- inspector -----------------------------------------------------------------------------


def _filters(call: _Call) -> RequestFilter:
    return RequestFilter.parse(call.query)


def _inspector(call: _Call) -> Document:
    operations = call.ui.operations
    filters = _filters(call)
    return inspector_page.inspector(
        call.view,
        operations.memberships(),
        operations.now(),
        operations.latest_requests(LATEST_REQUESTS, filters, hidden_prefix=call.ui.ui_url),
        filters,
        operations.request_choices(hidden_prefix=call.ui.ui_url),
        operations.active_faults(),
        inspector_page.RateLimit(operations.rate_limit(), operations.requests_per_minute()),
        call.notice(),
        operations.user_name,
    )


def _requests(call: _Call) -> WireResponse:
    filters = _filters(call)
    entries = call.ui.operations.latest_requests(
        LATEST_REQUESTS, filters, hidden_prefix=call.ui.ui_url
    )
    body = inspector_page.requests_table(call.view, entries, call.ui.operations.user_name).encode(
        "utf-8"
    )
    headers = (("Content-Type", "text/html; charset=utf-8"), *_SECURITY_HEADERS)
    return WireResponse(200, headers, body)


def _request_detail(call: _Call) -> Document:
    text = call.query.get("number", "")
    # ASCII digits only ("²" is a digit to isdigit), and few: int() refuses 4,300 of them.
    whole = text.isascii() and text.isdigit() and len(text) <= 18
    entry = call.ui.operations.logged_request(int(text) if whole else -1)
    return inspector_page.request_detail(call.view, entry, call.ui.operations.user_name)


def _change_user(call: _Call) -> Document:
    operations = call.ui.operations
    user_id = call.field("user")
    organization_id = call.field("organization")
    action = call.field("action")
    row = operations.membership(user_id, organization_id)
    who, where = row.user.name, row.organization.name
    if action == "remove":
        operations.remove_user(user_id, organization_id)
        text = f"{who} was removed from {where}; their tokens stop working at once."
        raise _Redirect("/inspector", notice=Notice(text))
    if action == "restore":
        role = operations.restore_user(user_id, organization_id)
        text = f"{who} is back in {where} as {pages.role_name(role)}; their tokens work again."
        raise _Redirect("/inspector", notice=Notice(text))
    if action == "role":
        try:
            role = Role(call.field("role"))
        except ValueError:
            raise InvalidRequest(
                f"the role must be one of {', '.join(r.value for r in Role)}", rule_id=""
            ) from None
        operations.set_role(user_id, organization_id, role)
        text = f"{who} is now {pages.role_name(role)} in {where}."
        raise _Redirect("/inspector", notice=Notice(text))
    raise InvalidRequest("the action must be remove, restore or role", rule_id="")


def _confirm_remove(call: _Call) -> Document:
    row = call.ui.operations.membership(
        call.query.get("user", ""), call.query.get("organization", "")
    )
    call.ui.operations.check_removable(row.user.id, row.organization.id)
    return inspector_page.confirm_remove(call.view, row)


def _advance(call: _Call) -> Document:
    text = call.field("seconds").strip()
    whole = text.isascii() and text.isdigit() and len(text) <= 10
    if not whole or not 1 <= int(text) <= MAX_ADVANCE_SECONDS:
        raise InvalidRequest(
            f"the clock moves by a whole number of seconds from 1 to {MAX_ADVANCE_SECONDS}",
            rule_id="",
        )
    operations = call.ui.operations
    operations.advance_clock(int(text))
    now = readable_time(operations.now())
    text = f"The clock moved forward by {plain_duration(int(text))}; it is now {now}."
    raise _Redirect("/inspector", notice=Notice(text))


def _change_faults(call: _Call) -> Document:
    operations = call.ui.operations
    action = call.field("action")
    if action == "add":
        rule = operations.add_fault(call.form())
        text = f"Fault rule {rule.id} added: {inspector_page.describe_fault(rule)}."
    elif action == "remove":
        rule_id = call.field("rule")
        operations.remove_fault(rule_id)
        text = f"Fault rule {rule_id} removed."
    elif action == "clear":
        operations.clear_faults()
        text = "Every fault rule was removed and the rate limit is off."
    elif action == "rate-limit":
        on = call.field("on") == "true"
        operations.set_rate_limit(on)
        text = f"The GraphQL rate limit is {'on' if on else 'off'}."
    else:
        raise InvalidRequest("the action must be add, remove, clear or rate-limit", rule_id="")
    raise _Redirect("/inspector#faults-heading", notice=Notice(text))


def _confirm_reset(call: _Call) -> Document:
    return inspector_page.confirm_reset(call.view)


def _reset(call: _Call) -> Document:
    call.form()
    call.ui.operations.reset()
    text = "The fake is back to its seeded world: users, tokens, clock, no faults, empty log."
    raise _Redirect("/inspector", notice=Notice(text))
