"""The inspector, for the person testing: users and roles, the clock, the latest requests and
the active faults."""

from __future__ import annotations

from collections.abc import Sequence

from patgate.fake.faults import FaultRule
from patgate.fake.model import Role
from patgate.ui.markup import (
    Document,
    View,
    cell,
    escape,
    hidden,
    notice,
    post_form,
    role_name,
    table,
)
from patgate.ui.operations import Membership
from patgate.wire.request_log import LoggedRequest

__all__ = ["inspector", "requests_table"]


def _user_fields(row: Membership, action: str) -> list[str]:
    return [
        hidden("user", row.user.id),
        hidden("organization", row.organization.id),
        hidden("action", action),
    ]


def _role_form(view: View, row: Membership, index: int) -> str:
    """A member's role picker; a removed user's "Restore" (with the role they had)."""
    name = escape(row.user.name)
    if row.role is None:
        label = f'Restore<span class="visually-hidden"> {name}</span>'
        return post_form(view, "/inspector/users", _user_fields(row, "restore"), label)
    options = "".join(
        f'<option value="{role.value}"{" selected" if role is row.role else ""}>'
        f"{escape(role_name(role))}</option>"
        for role in Role
    )
    select = (
        f'<label class="visually-hidden" for="role-{index}">Role of {name}</label>'
        f'<select id="role-{index}" name="role">{options}</select>'
    )
    label = f'Set role<span class="visually-hidden"> of {name}</span>'
    fields = [*_user_fields(row, "role"), select]
    return post_form(view, "/inspector/users", fields, label, css="quiet")


def _remove_form(view: View, row: Membership) -> str:
    if row.role is None:
        return ""
    label = f'Remove<span class="visually-hidden"> {escape(row.user.name)}</span>'
    return post_form(view, "/inspector/users", _user_fields(row, "remove"), label, css="danger")


def requests_table(view: View, entries: Sequence[LoggedRequest]) -> str:
    """The latest requests, newest first (also served alone, for the refreshing view)."""
    rows = [
        "<tr>"
        + cell("Method", escape(e.method))
        + cell("URL", f"<code>{escape(e.url)}</code>")
        + cell("Status", escape(e.status))
        + cell("Credential", escape(e.auth_scheme or "none"))
        + "</tr>"
        for e in entries
    ]
    return table(
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
        + cell("Endpoint", escape(rule.endpoint))
        + cell("Only for", escape(", ".join(scope) or "any caller"))
        + cell("Answer", escape(answer))
        + cell("Fires", escape(fires))
        + cell("Fired", escape(rule.hits))
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
        + cell("Name", escape(row.user.name))
        + cell("Organization", escape(row.organization.name))
        + cell("Role", escape(role_name(row.role)))
        + cell(
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
    ) + table(
        "Active faults",
        ("Endpoint", "Only for", "Answer", "Fires", "Fired"),
        [_fault_row(rule) for rule in faults],
        "No faults are active.",
    )
    main = (
        (notice(message) if message else "")
        + "<h1>Inspector</h1>"
        + '<section aria-labelledby="users-heading"><h2 id="users-heading">Users and roles</h2>'
        + table("Users and roles", ("Name", "Organization", "Role", "Change"), rows, "No users.")
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
