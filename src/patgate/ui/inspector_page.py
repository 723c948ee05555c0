"""The inspector, for the person testing: users and roles, the clock, the requests the fake
answered (filtered, each with a detail view), the fault rules, and a reset."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from urllib.parse import urlencode, urlsplit

from patgate.fake.faults import FaultRule
from patgate.fake.model import Role
from patgate.ui.markup import (
    Document,
    View,
    cell,
    escape,
    hidden,
    long_text,
    notice,
    post_form,
    role_name,
    table,
    when,
)
from patgate.ui.once import Notice
from patgate.ui.operations import Membership, RequestFilter
from patgate.ui.words import exact_time, fault_frequency
from patgate.wire.request_log import DROPPED, LoggedRequest

__all__ = [
    "confirm_remove",
    "confirm_reset",
    "describe_fault",
    "inspector",
    "request_detail",
    "requests_table",
]

NameOf = Callable[[str], str]
"""A user's name from their id."""


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


def _remove_link(view: View, row: Membership, last_admin: bool) -> str:
    if row.role is None:
        return ""
    if last_admin:
        return '<span class="muted">Last admin: cannot be removed</span>'
    query = urlencode({"user": row.user.id, "organization": row.organization.id})
    href = escape(f"{view.base}/inspector/users/remove?{query}")
    return (
        f'<a class="button danger" href="{href}">Remove'
        f'<span class="visually-hidden"> {escape(row.user.name)}</span></a>'
    )


def confirm_remove(view: View, row: Membership) -> Document:
    """Asks before removing a user from an organization."""
    main = (
        f'<h1 tabindex="-1" data-focus>Remove {long_text(row.user.name)} from '
        f"{long_text(row.organization.name)}?</h1>"
        "<p>Their personal access tokens and client tokens stop working at once (the API "
        "answers 403). You can restore them later with the role they had.</p>"
        '<div class="actions">'
        + post_form(
            view, "/inspector/users", _user_fields(row, "remove"), "Remove user", css="danger solid"
        )
        + f'<a class="button quiet" href="{escape(view.base)}/inspector">Cancel</a></div>'
    )
    return Document("Remove user", main, section="inspector")


def confirm_reset(view: View) -> Document:
    """Asks before bringing the fake back to its seeded world."""
    main = (
        '<h1 tabindex="-1" data-focus>Reset the fake?</h1>'
        "<p>Users, roles, tokens and pending requests go back to the seeded world; the clock "
        "goes back, every fault rule is removed and the request log is emptied. The world's "
        "credentials stay the same.</p>"
        '<div class="actions">'
        + post_form(view, "/inspector/reset", [], "Reset the fake", css="danger solid")
        + f'<a class="button quiet" href="{escape(view.base)}/inspector">Cancel</a></div>'
    )
    return Document("Reset", main, section="inspector")


def _clock(moment: float) -> str:
    if not moment:
        return '<span class="muted">unknown</span>'
    instant = datetime.fromtimestamp(moment, timezone.utc)
    exact = escape(exact_time(instant))
    return f'<time datetime="{exact}" title="{exact}">{instant:%H:%M:%S}</time>'


def _credential(entry: LoggedRequest, name_of: NameOf) -> str:
    if entry.principal:
        kind = {"pat": "personal access token", "client": "client token"}.get(
            entry.via or "", "token"
        )
        return f"{long_text(name_of(entry.principal))} <span class='muted'>({kind})</span>"
    if entry.auth_scheme:
        return f'{escape(entry.auth_scheme)} <span class="muted">(not valid)</span>'
    return '<span class="muted">none</span>'


def _status(entry: LoggedRequest) -> str:
    if entry.status == DROPPED:
        return '<span class="badge bad">dropped</span>'
    tone = "good" if entry.status < 400 else "bad" if entry.status >= 500 else "warn"
    return f'<span class="badge {tone}">{entry.status}</span>'


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def requests_table(view: View, entries: Sequence[LoggedRequest], name_of: NameOf) -> str:
    """The requests, newest first (also served alone, for the refreshing view)."""
    rows = []
    for e in entries:
        detail = escape(f"{view.base}/inspector/request?number={e.number}")
        rows.append(
            "<tr>"
            + cell("Time", _clock(e.at))
            + cell("Method", escape(e.method))
            + cell("Path", f'<code class="long">{escape(_path(e.url))}</code>')
            + cell("Operation", escape(e.operation or "none"))
            + cell("Credential", _credential(e, name_of))
            + cell("Status", _status(e))
            + cell("Fault", escape(e.fault or "none"))
            + cell(
                "Details",
                f'<a href="{detail}">#{e.number}<span class="visually-hidden"> details</span></a>',
            )
            + "</tr>"
        )
    return table(
        "Requests",
        ("Time (UTC)", "Method", "Path", "Operation", "Credential", "Status", "Fault", "Details"),
        rows,
        "No API requests match.",
        css="requests",
    )


def request_detail(view: View, entry: LoggedRequest, name_of: NameOf) -> Document:
    """One request in full: what came, who sent it, the answer, headers and body (redacted)."""
    facts = [
        ("Number", escape(entry.number)),
        ("Time", _clock(entry.at) + " UTC"),
        ("Method", escape(entry.method)),
        ("URL", f'<code class="long">{escape(entry.url)}</code>'),
        ("GraphQL operation", escape(entry.operation or "none")),
        ("Credential", _credential(entry, name_of)),
        ("Status", _status(entry)),
        ("Fault rule", escape(entry.fault or "none: the real answer")),
        ("Took", escape(f"{entry.duration_ms:.1f} ms")),
    ]
    headers = table(
        "Request headers",
        ("Name", "Value"),
        [
            "<tr>"
            + cell("Name", f"<code>{escape(name)}</code>")
            + cell("Value", f'<code class="long">{escape(value)}</code>')
            + "</tr>"
            for name, value in entry.headers
        ],
        "No headers were logged.",
    )
    body = getattr(entry, "body", None)
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    body_html = (
        f'<pre class="body">{escape(body)}</pre>'
        if body
        else '<p class="empty">The log holds no body for this request.</p>'
    )
    back = escape(f"{view.base}/inspector#requests-heading")
    main = (
        f'<h1 tabindex="-1" data-focus>Request #{entry.number}: {escape(entry.method)} '
        f'<code class="long">{escape(_path(entry.url))}</code></h1>'
        "<p>Credentials are redacted: the log never holds a token or a secret.</p>"
        '<dl class="facts">'
        + "".join(f"<dt>{escape(name)}</dt><dd>{value}</dd>" for name, value in facts)
        + "</dl>"
        + '<h2 id="headers-heading">Headers</h2>'
        + headers
        + '<h2 id="body-heading">Body</h2>'
        + body_html
        + f'<p><a class="button quiet" href="{back}">Back to the requests</a></p>'
    )
    return Document(f"Request #{entry.number}", main, section="inspector")


def describe_fault(rule: FaultRule) -> str:
    """A rule in one sentence: where, for whom, what it answers, how often."""
    where = "every endpoint" if rule.endpoint == "any" else f"the {rule.endpoint} endpoint"
    scope = [f"operation {rule.operation}"] if rule.operation else []
    scope += [f"user {rule.principal}"] if rule.principal else []
    if rule.drop:
        answer = "drops the connection"
    elif rule.status is not None:
        answer = f"answers {rule.status}"
        answer += f" with Retry-After {rule.retry_after}" if rule.retry_after is not None else ""
    else:
        answer = "gives the real answer"
    answer += f" after {rule.latency:g} s" if rule.latency else ""
    only = f" ({', '.join(scope)} only)" if scope else ""
    return f"{where}{only} {answer}, for {fault_frequency(rule.count, rule.probability)}"


def _fault_row(view: View, rule: FaultRule) -> str:
    remove = post_form(
        view,
        "/inspector/faults",
        [hidden("action", "remove"), hidden("rule", rule.id)],
        f'Remove<span class="visually-hidden"> {escape(rule.id)}</span>',
        css="danger",
    )
    return (
        "<tr>"
        + cell("Rule", f'<code class="id">{escape(rule.id)}</code>')
        + cell("What it does", long_text(describe_fault(rule)))
        + cell("Fired", escape(rule.hits))
        + cell("Action", remove)
        + "</tr>"
    )


_ENDPOINTS = (
    ("any", "Any endpoint"),
    ("token", "Token endpoint"),
    ("graphql", "GraphQL"),
    ("hubs", "Hubs listing"),
    ("content", "Content API"),
)


def _fault_form(view: View) -> str:
    options = "".join(f'<option value="{v}">{escape(label)}</option>' for v, label in _ENDPOINTS)

    def number(name: str, label: str, help_text: str, **attrs: str) -> str:
        extra = "".join(f' {k}="{escape(v)}"' for k, v in attrs.items())
        return (
            f'<div class="field"><label for="fault-{name}">{escape(label)}</label>'
            f'<input id="fault-{name}" name="{name}" type="number" inputmode="decimal"{extra} '
            f'aria-describedby="fault-{name}-help">'
            f'<p id="fault-{name}-help" class="help">{escape(help_text)}</p></div>'
        )

    fields = [
        hidden("action", "add"),
        '<div class="grid">',
        '<div class="field"><label for="fault-endpoint">Endpoint</label>'
        f'<select id="fault-endpoint" name="endpoint">{options}</select></div>',
        number("status", "Answer with status", "Empty: the real answer.", min="100", max="599"),
        number("retry_after", "Retry-After (seconds)", "Sent with the status.", min="0"),
        number("latency", "Delay (seconds)", "Waited before answering.", min="0", step="0.1"),
        number("count", "Times", "Empty: until removed.", min="1"),
        number("probability", "Share of requests (%)", "Empty: 100.", min="1", max="100"),
        '<div class="field"><label for="fault-operation">GraphQL operation</label>'
        '<input id="fault-operation" name="operation" type="text" autocomplete="off" '
        'aria-describedby="fault-operation-help">'
        '<p id="fault-operation-help" class="help">Empty: every operation.</p></div>',
        '<div class="field check"><input id="fault-drop" name="drop" type="checkbox">'
        '<label for="fault-drop">Drop the connection instead</label></div>',
        "</div>",
    ]
    return post_form(view, "/inspector/faults", fields, "Add fault rule", form_class="stack")


def _filters_form(
    view: View,
    filters: RequestFilter,
    users: Sequence[str],
    operations: Sequence[str],
    name_of: NameOf,
) -> str:
    def select(name: str, label: str, values: Sequence[tuple[str, str]], chosen: str) -> str:
        options = '<option value="">Any</option>' + "".join(
            f'<option value="{escape(v)}"{" selected" if v == chosen else ""}>{escape(t)}</option>'
            for v, t in values
        )
        return (
            f'<div class="field"><label for="filter-{name}">{escape(label)}</label>'
            f'<select id="filter-{name}" name="{name}">{options}</select></div>'
        )

    statuses = [(s, s) for s in ("2xx", "4xx", "5xx", "401", "403", "429")]
    if filters.status and filters.status not in dict(statuses):
        statuses.append((filters.status, filters.status))
    clear = (
        f' <a class="button quiet" href="{escape(view.base)}/inspector#requests-heading">'
        "Show all</a>"
        if filters.active
        else ""
    )
    return (
        f'<form method="get" action="{escape(view.base)}/inspector#requests-heading" '
        'class="filters">'
        + select("user", "User", [(u, name_of(u)) for u in users], filters.user)
        + select("status", "Status", statuses, filters.status)
        + select("operation", "Operation", [(o, o) for o in operations], filters.operation)
        + f'<div class="actions"><button type="submit" class="quiet">Filter</button>{clear}</div>'
        + "</form>"
    )


_PRESETS = ((300, "5 minutes"), (3600, "1 hour"), (86400, "1 day"), (400 * 86400, "400 days"))


def inspector(
    view: View,
    memberships: Sequence[Membership],
    now: datetime,
    entries: Sequence[LoggedRequest],
    filters: RequestFilter,
    choices: tuple[Sequence[str], Sequence[str]],
    faults: Sequence[FaultRule],
    rate_limit: bool,
    shown: Notice | None,
    name_of: NameOf,
) -> Document:
    """Users and roles, the clock, the requests, the fault rules and the reset."""
    admins: dict[str, int] = {}
    for row in memberships:
        if row.role is Role.ADMIN:
            admins[row.organization.id] = admins.get(row.organization.id, 0) + 1
    rows = [
        "<tr>"
        + cell("Name", long_text(row.user.name))
        + cell("Organization", long_text(row.organization.name))
        + cell("Role", escape(role_name(row.role)))
        + cell(
            "Change",
            f'<div class="actions">{_role_form(view, row, i)}'
            + _remove_link(
                view, row, row.role is Role.ADMIN and admins.get(row.organization.id, 0) <= 1
            )
            + "</div>",
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
    rate_form = post_form(
        view,
        "/inspector/faults",
        [hidden("action", "rate-limit"), hidden("on", "false" if rate_limit else "true")],
        "Switch the rate limit off" if rate_limit else "Switch the rate limit on",
        css="quiet",
    )
    clear_form = (
        post_form(
            view,
            "/inspector/faults",
            [hidden("action", "clear")],
            "Remove every rule",
            css="danger",
        )
        if faults or rate_limit
        else ""
    )
    fault_list = (
        '<p class="cap">The GraphQL rate limit (60 requests per minute per key) is '
        f"<strong>{'on' if rate_limit else 'off'}</strong>.</p>"
        + table(
            "Fault rules",
            ("Rule", "What it does", "Fired", "Action"),
            [_fault_row(view, rule) for rule in faults],
            "No fault rules: every request gets the real answer.",
        )
        + f'<div class="actions">{rate_form}{clear_form}</div>'
    )
    users, operations = choices
    refresh = escape(
        f"{view.base}/inspector/requests?"
        + urlencode(
            {
                k: v
                for k, v in (
                    ("user", filters.user),
                    ("status", filters.status),
                    ("operation", filters.operation),
                )
                if v
            }
        )
    )
    main = (
        notice(shown)
        + "<h1>Inspector</h1>"
        + '<section aria-labelledby="users-heading"><h2 id="users-heading">Users and roles</h2>'
        + table("Users and roles", ("Name", "Organization", "Role", "Change"), rows, "No users.")
        + "</section>"
        + '<section aria-labelledby="clock-heading"><h2 id="clock-heading">Clock</h2>'
        + f"<p>The fake's time is {when(now)}. "
        "Client tokens expire against it; personal access tokens never do.</p>"
        + post_form(view, "/inspector/clock", [seconds_field], "Advance", form_class="stack")
        + f'<div class="actions presets">{presets}</div></section>'
        + '<section aria-labelledby="requests-heading">'
        + '<h2 id="requests-heading">Requests</h2>'
        + '<p class="help">Newest first, the latest 50 that match; the page\'s own requests '
        "are left out. Credentials are redacted. "
        f'<a href="{escape(view.base)}/inspector#requests-heading">Refresh</a></p>'
        + _filters_form(view, filters, users, operations, name_of)
        + f'<div id="requests" data-refresh="{refresh}">'
        + requests_table(view, entries, name_of)
        + "</div></section>"
        + '<section aria-labelledby="faults-heading"><h2 id="faults-heading">Fault rules</h2>'
        + fault_list
        + '<h3 id="add-fault-heading">Add a fault rule</h3>'
        + _fault_form(view)
        + "</section>"
        + '<section aria-labelledby="reset-heading"><h2 id="reset-heading">Reset</h2>'
        + "<p>Back to the seeded world: users, tokens, clock, faults and the log.</p>"
        + f'<p><a class="button danger" href="{escape(view.base)}/inspector/reset">'
        "Reset the fake…</a></p></section>"
    )
    return Document("Inspector", main, section="inspector")
