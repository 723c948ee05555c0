"""The content of each page: who you are, tokens, approvals, the inspector, errors.

Each function takes what the fake answered and returns a :class:`Document`; none of them
calls the fake. A token's full value reaches HTML in exactly one place, :func:`reveal`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from urllib.parse import quote

from patgate.fake.clock import format_timestamp
from patgate.fake.faults import FaultRule
from patgate.fake.model import PatRecord, Role
from patgate.ui.markup import Document, View, escape, hidden, notice, post_form, role_name
from patgate.ui.operations import Membership, PendingRequest
from patgate.wire.request_log import LoggedRequest

__all__ = [
    "approvals",
    "confirm_delete",
    "error",
    "inspector",
    "pick_user",
    "requests_table",
    "reveal",
    "tokens",
]


def _when(moment: datetime | None) -> str:
    if moment is None:
        return '<span class="muted">never</span>'
    text = format_timestamp(moment)
    return f'<time datetime="{escape(text)}">{escape(text)}</time>'


def _status_badge(record: PatRecord) -> str:
    if record.status.value == "pending":
        return '<span class="badge pending">Pending approval</span>'
    return '<span class="badge active">Active</span>'


def _cell(label: str, content: str) -> str:
    return f'<td data-label="{escape(label)}">{content}</td>'


def _table(caption: str, headings: Sequence[str], rows: Sequence[str], empty: str) -> str:
    if not rows:
        return f'<p class="empty">{escape(empty)}</p>'
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in headings)
    return (
        f'<table><caption class="visually-hidden">{escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


# -- who you are ---------------------------------------------------------------------------


def pick_user(view: View, users: Sequence[Membership], message: str = "") -> Document:
    """The list of the world's users, each with a button to act as them."""
    rows = []
    for row in users:
        current = view.identity is not None and view.identity.user.id == row.user.id
        action = (
            '<span class="badge active">You</span>'
            if current
            else post_form(
                view,
                "/session",
                [hidden("user", row.user.id)],
                f'Act as<span class="visually-hidden"> {escape(row.user.name)}</span>',
                css="quiet",
            )
        )
        rows.append(
            "<tr>"
            + _cell("Name", escape(row.user.name))
            + _cell("Email", escape(row.user.email))
            + _cell("Organization", escape(row.organization.name))
            + _cell("Role", escape(role_name(row.role)))
            + _cell("Action", action)
            + "</tr>"
        )
    identity = view.identity
    if identity is None:
        intro = (
            "<p>This is the fake's management page. Pick the user you want to act as; "
            "there are no passwords.</p>"
        )
    else:
        organization = identity.organization.name if identity.organization else "none"
        intro = (
            '<dl class="facts">'
            f"<dt>Name</dt><dd>{escape(identity.user.name)}</dd>"
            f"<dt>Email</dt><dd>{escape(identity.user.email)}</dd>"
            f"<dt>Organization</dt><dd>{escape(organization)}</dd>"
            f"<dt>Role</dt><dd>{escape(role_name(identity.role))}</dd></dl>"
        )
    main = (
        (notice(message) if message else "")
        + "<h1>Who you are</h1>"
        + intro
        + f"<h2>{'Pick a user' if identity is None else 'Act as another user'}</h2>"
        + _table("Users", ("Name", "Email", "Organization", "Role", "Action"), rows, "No users.")
    )
    return Document("Who you are", main, section="who")


# -- tokens --------------------------------------------------------------------------------


def tokens(
    view: View,
    records: Sequence[PatRecord],
    cap: int,
    *,
    message: str = "",
    problem: str = "",
    status: int = 200,
    name: str = "",
) -> Document:
    """The person's tokens, the create form, and the cap.

    ``message`` reports the last action; ``problem`` is the fake's refusal of a create, shown
    beside the form with the name the person typed kept.
    """
    rows = []
    for record in records:
        delete_href = f"{view.base}/tokens/delete?id={_query(record.id)}"
        rows.append(
            "<tr>"
            + _cell("Name", escape(record.name))
            + _cell("Token", f'<code class="masked">{escape(record.masked)}</code>')
            + _cell("Created", _when(record.created_date))
            + _cell("Last used", _when(record.last_used_date))
            + _cell("Status", _status_badge(record))
            + _cell(
                "Action",
                f'<a class="button danger" href="{escape(delete_href)}">Delete'
                f'<span class="visually-hidden"> {escape(record.name)}</span></a>',
            )
            + "</tr>"
        )
    held = len(records)
    full = held >= cap
    cap_line = (
        f'<p id="cap" class="cap{" full" if full else ""}">You hold {held} of {cap} tokens.'
        + (" Delete one before creating another." if full else "")
        + "</p>"
    )
    is_admin = view.identity is not None and view.identity.is_admin
    explain = (
        "As an admin, your token is usable at once. Its value is shown once, right after you "
        "create it."
        if is_admin
        else "Your request goes to an organization admin; the token is listed as pending and "
        "cannot be used until they approve it."
    )
    error_id = "name-problem"
    described = f"cap name-help{' ' + error_id if problem else ''}"
    problem_html = (
        f'<p id="{error_id}" class="field-error" role="alert" tabindex="-1" data-focus>'
        f"{escape(problem)}</p>"
        if problem
        else ""
    )
    invalid = ' aria-invalid="true"' if problem else ""
    field = (
        '<div class="field"><label for="token-name">Token name</label>'
        f'<input id="token-name" name="name" type="text" required maxlength="255" '
        f'autocomplete="off" value="{escape(name)}" aria-describedby="{described}"{invalid}>'
        f'<p id="name-help" class="help">{escape(explain)}</p>{problem_html}</div>'
    )
    button = "Create token" if is_admin else "Request token"
    main = (
        (notice(message) if message else "")
        + "<h1>Personal access tokens</h1>"
        + cap_line
        + _table(
            "Your tokens",
            ("Name", "Token", "Created", "Last used", "Status", "Action"),
            rows,
            "You have no tokens yet.",
        )
        + f"<h2>{escape(button)}</h2>"
        + post_form(view, "/tokens", [field], escape(button), form_class="stack")
    )
    return Document("Tokens", main, section="tokens", status=status)


def reveal(view: View, record: PatRecord, value: str) -> Document:
    """The one page that shows a token's full value, right after it was created or requested.

    An admin's token works at once; a member's waits for an admin's approval and works from
    then on with the value shown here.
    """
    if record.status.value == "pending":
        heading = "Token requested"
        state = (
            f"Your request <strong>{escape(record.name)}</strong> was sent to an organization "
            "admin. The token is listed as pending and works once they approve it."
        )
    else:
        heading = "Token created"
        state = (
            f"Your token <strong>{escape(record.name)}</strong> is active and can be used at once."
        )
    main = (
        f'<h1 id="reveal-heading" tabindex="-1" data-focus>{heading}</h1>'
        f"<p>{state}</p>"
        '<p id="reveal-warning" class="warning"><strong>Copy the value now.</strong> '
        "It will not be shown again: afterwards only its masked form is listed.</p>"
        '<div class="field"><label for="token-value">Token value</label>'
        '<div class="copy-row">'
        f'<input id="token-value" class="secret" type="text" readonly value="{escape(value)}" '
        'autocomplete="off" spellcheck="false" aria-describedby="reveal-warning">'
        '<button type="button" class="quiet" data-copy="token-value" hidden>Copy</button>'
        "</div>"
        '<p class="help" id="copy-status" role="status"></p></div>'
        f'<p><a class="button" href="{escape(view.base)}/tokens">Done, back to my tokens</a></p>'
    )
    return Document(heading, main, section="tokens")


def confirm_delete(view: View, record: PatRecord) -> Document:
    """Asks before deleting a token."""
    main = (
        f'<h1 tabindex="-1" data-focus>Delete the token “{escape(record.name)}”?</h1>'
        f'<p>Token <code class="masked">{escape(record.masked)}</code>. Anything that uses it '
        "stops working at once. This cannot be undone.</p>"
        '<div class="actions">'
        + post_form(
            view, "/tokens/delete", [hidden("id", record.id)], "Delete token", css="danger solid"
        )
        + f'<a class="button quiet" href="{escape(view.base)}/tokens">Cancel</a></div>'
    )
    return Document("Delete token", main, section="tokens")


# -- approvals -----------------------------------------------------------------------------


def approvals(view: View, pending: Sequence[PendingRequest], message: str = "") -> Document:
    """The organization's pending requests, each with approve and reject."""
    rows = []
    for request in pending:
        record = request.record
        label = f'<span class="visually-hidden"> {escape(record.name)}</span>'
        actions = (
            '<div class="actions">'
            + post_form(
                view,
                "/approvals",
                [hidden("id", record.id), hidden("decision", "approve")],
                f"Approve{label}",
            )
            + post_form(
                view,
                "/approvals",
                [hidden("id", record.id), hidden("decision", "reject")],
                f"Reject{label}",
                css="danger",
            )
            + "</div>"
        )
        rows.append(
            "<tr>"
            + _cell("Requester", escape(request.requester.name))
            + _cell("Email", escape(request.requester.email))
            + _cell("Token name", escape(record.name))
            + _cell("Requested", _when(record.created_date))
            + _cell("Decision", actions)
            + "</tr>"
        )
    main = (
        (notice(message) if message else "")
        + "<h1>Approvals</h1>"
        + "<p>Tokens that members of your organization asked for. An approved token works at "
        "once; a rejected request disappears.</p>"
        + _table(
            "Pending requests",
            ("Requester", "Email", "Token name", "Requested", "Decision"),
            rows,
            "No requests are waiting.",
        )
    )
    return Document("Approvals", main, section="approvals")


# -- inspector -----------------------------------------------------------------------------


def _role_form(view: View, row: Membership, index: int) -> str:
    options = "".join(
        f'<option value="{role.value}"{" selected" if role is (row.role or Role.MEMBER) else ""}>'
        f"{escape(role_name(role))}</option>"
        for role in Role
    )
    select = (
        f'<label class="visually-hidden" for="role-{index}">Role of '
        f"{escape(row.user.name)}</label>"
        f'<select id="role-{index}" name="role">{options}</select>'
    )
    fields = [
        hidden("user", row.user.id),
        hidden("organization", row.organization.id),
        hidden("action", "role"),
        select,
    ]
    verb = "Set role" if row.role is not None else "Restore"
    label = f'{verb}<span class="visually-hidden"> of {escape(row.user.name)}</span>'
    return post_form(view, "/inspector/users", fields, label, css="quiet")


def _remove_form(view: View, row: Membership) -> str:
    if row.role is None:
        return ""
    fields = [
        hidden("user", row.user.id),
        hidden("organization", row.organization.id),
        hidden("action", "remove"),
    ]
    label = f'Remove<span class="visually-hidden"> {escape(row.user.name)}</span>'
    return post_form(view, "/inspector/users", fields, label, css="danger")


def requests_table(view: View, entries: Sequence[LoggedRequest]) -> str:
    """The latest requests, newest first (also served alone, for the refreshing view)."""
    rows = [
        "<tr>"
        + _cell("Method", escape(e.method))
        + _cell("URL", f"<code>{escape(e.url)}</code>")
        + _cell("Status", escape(e.status))
        + _cell("Credential", escape(e.auth_scheme or "none"))
        + "</tr>"
        for e in entries
    ]
    return _table(
        "Latest requests",
        ("Method", "URL", "Status", "Credential"),
        rows,
        "No API requests yet.",
    )


def _fault_row(rule: FaultRule) -> str:
    scope = [f"operation {rule.operation}"] if rule.operation else []
    scope += [f"user {rule.principal}"] if rule.principal else []
    if rule.drop:
        answer = "drops the connection"
    elif rule.status is not None:
        answer = f"status {rule.status}"
        answer += f", Retry-After {rule.retry_after}" if rule.retry_after is not None else ""
    else:
        answer = "the real answer"
    answer += f", after {rule.latency:g} s" if rule.latency else ""
    fires = "every time" if rule.count is None else f"{rule.count} more"
    fires += f" ({rule.probability:.0%} chance)" if rule.probability < 1 else ""
    return (
        "<tr>"
        + _cell("Endpoint", escape(rule.endpoint))
        + _cell("Only for", escape(", ".join(scope) or "any caller"))
        + _cell("Answer", escape(answer))
        + _cell("Fires", escape(fires))
        + _cell("Fired", escape(rule.hits))
        + "</tr>"
    )


_PRESETS = ((300, "5 minutes"), (3600, "1 hour"), (86400, "1 day"), (400 * 86400, "400 days"))


def inspector(
    view: View,
    memberships: Sequence[Membership],
    now: str,
    entries: Sequence[LoggedRequest],
    faults: Sequence[FaultRule],
    rate_limit: bool,
    message: str = "",
) -> Document:
    """Users and roles, the clock, the latest requests and the active faults."""
    rows = [
        "<tr>"
        + _cell("Name", escape(row.user.name))
        + _cell("Organization", escape(row.organization.name))
        + _cell("Role", escape(role_name(row.role)))
        + _cell(
            "Change",
            f'<div class="actions">{_role_form(view, row, i)}{_remove_form(view, row)}</div>',
        )
        + "</tr>"
        for i, row in enumerate(memberships)
    ]
    seconds_field = (
        '<div class="field"><label for="advance-seconds">Advance by (seconds)</label>'
        '<input id="advance-seconds" name="seconds" type="number" min="1" step="1" '
        'inputmode="numeric" required></div>'
    )
    presets = "".join(
        post_form(view, "/inspector/clock", [hidden("seconds", str(s))], f"+ {escape(label)}")
        for s, label in _PRESETS
    )
    fault_list = (
        '<p class="cap">The GraphQL rate limit (60 requests per minute per key) is on.</p>'
        if rate_limit
        else ""
    ) + _table(
        "Active faults",
        ("Endpoint", "Only for", "Answer", "Fires", "Fired"),
        [_fault_row(rule) for rule in faults],
        "No faults are active.",
    )
    main = (
        (notice(message) if message else "")
        + "<h1>Inspector</h1>"
        + '<section aria-labelledby="users-heading"><h2 id="users-heading">Users and roles</h2>'
        + _table("Users and roles", ("Name", "Organization", "Role", "Change"), rows, "No users.")
        + "</section>"
        + '<section aria-labelledby="clock-heading"><h2 id="clock-heading">Clock</h2>'
        + f'<p>The fake\'s time is <time datetime="{escape(now)}">{escape(now)}</time>. '
        "Client tokens expire against it; personal access tokens never do.</p>"
        + post_form(view, "/inspector/clock", [seconds_field], "Advance", form_class="stack")
        + f'<div class="actions presets">{presets}</div></section>'
        + '<section aria-labelledby="requests-heading">'
        + '<h2 id="requests-heading">Latest requests</h2>'
        + '<p class="help">Newest first; the page\'s own requests are left out. '
        f'<a href="{escape(view.base)}/inspector#requests-heading">Refresh</a></p>'
        + f'<div id="requests" data-refresh="{escape(view.base)}/inspector/requests">'
        + requests_table(view, entries)
        + "</div></section>"
        + '<section aria-labelledby="faults-heading"><h2 id="faults-heading">Active faults</h2>'
        + fault_list
        + "</section>"
    )
    return Document("Inspector", main, section="inspector")


# -- errors --------------------------------------------------------------------------------


def error(view: View, status: int, message: str) -> Document:
    """A refusal, in words: what went wrong and where to go next."""
    main = (
        f'<h1 tabindex="-1" data-focus>{escape(_TITLES.get(status, "Request refused"))}</h1>'
        f'<p class="problem">{escape(message)}</p>'
        f'<p><a href="{escape(view.base)}/">Back to the start</a></p>'
    )
    return Document(_TITLES.get(status, "Request refused"), main, status=status)


_TITLES = {
    400: "Bad request",
    403: "Not allowed",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Too large",
}


def _query(value: str) -> str:
    return quote(value, safe="")
