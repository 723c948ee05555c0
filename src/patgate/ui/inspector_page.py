"""The inspector, for the person testing: users and roles, the clock, the requests the fake
answered (filtered, each with a detail view), the fault rules, and a reset.

HTML is built with :func:`~patgate.ui.markup.html` (escaping by default)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import urlencode, urlsplit

from patgate.fake.faults import FaultRule
from patgate.fake.model import Role
from patgate.ui.markup import (
    Document,
    Markup,
    View,
    cell,
    hidden,
    html,
    join,
    long_text,
    notice,
    post_form,
    role_name,
    table,
    when,
)
from patgate.ui.one_time_handles import Notice
from patgate.ui.operations import Membership, RequestFilter
from patgate.ui.readable_text import exact_time, fault_frequency
from patgate.wire.request_log import DROPPED, LoggedRequest

__all__ = [
    "RateLimit",
    "confirm_remove",
    "confirm_reset",
    "describe_fault",
    "inspector",
    "request_detail",
    "requests_table",
]

NameOf = Callable[[str], str]
"""A user's name from their id."""

_NOTHING = Markup("")


def _hidden_label(text: str) -> Markup:
    return html('<span class="visually-hidden"> {}</span>', text)


def _row(*cells: Markup) -> Markup:
    return html("<tr>{}</tr>", join(cells))


def _user_fields(row: Membership, action: str) -> list[Markup]:
    return [
        hidden("user", row.user.id),
        hidden("organization", row.organization.id),
        hidden("action", action),
    ]


def _role_form(view: View, row: Membership, index: int) -> Markup:
    """A member's role picker; a removed user's "Restore" (with the role they had)."""
    name = row.user.name
    if row.role is None:
        label = html("Restore{}", _hidden_label(name))
        return post_form(view, "/inspector/users", _user_fields(row, "restore"), label)
    options = join(
        html(
            '<option value="{}"{}>{}</option>',
            role.value,
            Markup(" selected") if role is row.role else _NOTHING,
            role_name(role),
        )
        for role in Role
    )
    select = html(
        '<label class="visually-hidden" for="role-{0}">Role of {1}</label>'
        '<select id="role-{0}" name="role">{2}</select>',
        index,
        name,
        options,
    )
    label = html("Set role{}", _hidden_label(f"of {name}"))
    fields = [*_user_fields(row, "role"), select]
    return post_form(view, "/inspector/users", fields, label, css="quiet")


def _remove_link(view: View, row: Membership, last_admin: bool) -> Markup:
    if row.role is None:
        return _NOTHING
    if last_admin:
        return Markup('<span class="muted">Last admin: cannot be removed</span>')
    query = urlencode({"user": row.user.id, "organization": row.organization.id})
    return html(
        '<a class="button danger" href="{}">Remove{}</a>',
        f"{view.base}/inspector/users/remove?{query}",
        _hidden_label(row.user.name),
    )


def _cancel(view: View) -> Markup:
    return html('<a class="button quiet" href="{}/inspector">Cancel</a>', view.base)


def confirm_remove(view: View, row: Membership) -> Document:
    """Asks before removing a user from an organization."""
    main = html(
        '<h1 tabindex="-1" data-focus>Remove {} from {}?</h1>'
        "<p>Their personal access tokens and client tokens stop working at once (the API "
        "answers 403). You can restore them later with the role they had.</p>"
        '<div class="actions">{}{}</div>',
        long_text(row.user.name),
        long_text(row.organization.name),
        post_form(
            view, "/inspector/users", _user_fields(row, "remove"), "Remove user", css="danger solid"
        ),
        _cancel(view),
    )
    return Document("Remove user", main, section="inspector")


def confirm_reset(view: View) -> Document:
    """Asks before bringing the fake back to its seeded world."""
    main = html(
        '<h1 tabindex="-1" data-focus>Reset the fake?</h1>'
        "<p>Users, roles, tokens and pending requests go back to the seeded world; the clock "
        "goes back, every fault rule is removed and the request log is emptied. The world's "
        "credentials stay the same.</p>"
        '<div class="actions">{}{}</div>',
        post_form(view, "/inspector/reset", [], "Reset the fake", css="danger solid"),
        _cancel(view),
    )
    return Document("Reset", main, section="inspector")


def _clock(moment: float) -> Markup:
    if not moment:
        return Markup('<span class="muted">unknown</span>')
    instant = datetime.fromtimestamp(moment, timezone.utc)
    return html(
        '<time datetime="{0}" title="{0}">{1}</time>', exact_time(instant), f"{instant:%H:%M:%S}"
    )


_KINDS = {"pat": "personal access token", "client": "client token"}


def _credential(entry: LoggedRequest, name_of: NameOf) -> Markup:
    if entry.principal:
        kind = _KINDS.get(entry.via or "", "token")
        return html('{} <span class="muted">({})</span>', long_text(name_of(entry.principal)), kind)
    if entry.auth_scheme:
        return html('{} <span class="muted">(not valid)</span>', entry.auth_scheme)
    return Markup('<span class="muted">none</span>')


def _status(entry: LoggedRequest) -> Markup:
    if entry.status == DROPPED:
        return Markup('<span class="badge bad">dropped</span>')
    tone = "good" if entry.status < 400 else "bad" if entry.status >= 500 else "warn"
    return html('<span class="badge {}">{}</span>', tone, entry.status)


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def requests_table(view: View, entries: Sequence[LoggedRequest], name_of: NameOf) -> Markup:
    """The requests, newest first (also served alone, for the refreshing view)."""
    rows = [
        _row(
            cell("Time", _clock(e.at)),
            cell("Method", e.method),
            cell("Path", html('<code class="long">{}</code>', _path(e.url))),
            cell("Operation", e.operation or "none"),
            cell("Credential", _credential(e, name_of)),
            cell("Status", _status(e)),
            cell("Fault", e.fault or "none"),
            cell("Refused because", e.reason or "not refused"),
            cell(
                "Details",
                html(
                    '<a href="{}/inspector/request?number={}">#{}{}</a>',
                    view.base,
                    e.number,
                    e.number,
                    _hidden_label("details"),
                ),
            ),
        )
        for e in entries
    ]
    return table(
        "Requests",
        ("Time (UTC)", "Method", "Path", "Operation", "Credential", "Status", "Fault", "Details"),
        rows,
        "No API requests match.",
        css="requests",
    )


def request_detail(view: View, entry: LoggedRequest, name_of: NameOf) -> Document:
    """One request in full: what came, who sent it, the answer, headers and body (redacted)."""
    facts: list[tuple[str, Markup | str]] = [
        ("Number", str(entry.number)),
        ("Time", html("{} UTC", _clock(entry.at))),
        ("Method", entry.method),
        ("URL", html('<code class="long">{}</code>', entry.url)),
        ("GraphQL operation", entry.operation or "none"),
        ("Credential", _credential(entry, name_of)),
        ("Status", _status(entry)),
        ("Fault rule", entry.fault or "none: the real answer"),
        (
            "Refused because",
            f"{entry.reason_code}: {entry.reason}" if entry.reason else "not refused",
        ),
        ("Took", f"{entry.duration_ms:.1f} ms"),
    ]
    headers = table(
        "Request headers",
        ("Name", "Value"),
        [
            _row(
                cell("Name", html("<code>{}</code>", name)),
                cell("Value", html('<code class="long">{}</code>', value)),
            )
            for name, value in entry.headers
        ],
        "No headers were logged.",
    )
    body = getattr(entry, "body", None)
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    body_html = (
        html('<pre class="body">{}</pre>', body)
        if body
        else Markup('<p class="empty">The log holds no body for this request.</p>')
    )
    main = html(
        '<h1 tabindex="-1" data-focus>Request #{}: {} <code class="long">{}</code></h1>'
        "<p>Credentials are redacted: the log never holds a token or a secret.</p>"
        '<dl class="facts">{}</dl>'
        '<h2 id="headers-heading">Headers</h2>{}'
        '<h2 id="body-heading">Body</h2>{}'
        '<p><a class="button quiet" href="{}/inspector#requests-heading">'
        "Back to the requests</a></p>",
        entry.number,
        entry.method,
        _path(entry.url),
        join(html("<dt>{}</dt><dd>{}</dd>", name, value) for name, value in facts),
        headers,
        body_html,
        view.base,
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


def _fault_row(view: View, rule: FaultRule) -> Markup:
    remove = post_form(
        view,
        "/inspector/faults",
        [hidden("action", "remove"), hidden("rule", rule.id)],
        html("Remove{}", _hidden_label(rule.id)),
        css="danger",
    )
    return _row(
        cell("Rule", html('<code class="id">{}</code>', rule.id)),
        cell("What it does", long_text(describe_fault(rule))),
        cell("Fired", str(rule.hits)),
        cell("Action", remove),
    )


_ENDPOINTS = (
    ("any", "Any endpoint"),
    ("token", "Token endpoint"),
    ("graphql", "GraphQL"),
    ("hubs", "Hubs listing"),
    ("content", "Content API"),
)


def _number_field(name: str, label: str, help_text: str, **attributes: str) -> Markup:
    extra = join(html(' {}="{}"', key, value) for key, value in attributes.items())
    return html(
        '<div class="field"><label for="fault-{0}">{1}</label>'
        '<input id="fault-{0}" name="{0}" type="number" inputmode="decimal"{2} '
        'aria-describedby="fault-{0}-help">'
        '<p id="fault-{0}-help" class="help">{3}</p></div>',
        name,
        label,
        extra,
        help_text,
    )


def _fault_form(view: View) -> Markup:
    options = join(html('<option value="{}">{}</option>', v, label) for v, label in _ENDPOINTS)
    fields = [
        hidden("action", "add"),
        html(
            '<div class="grid">'
            '<div class="field"><label for="fault-endpoint">Endpoint</label>'
            '<select id="fault-endpoint" name="endpoint">{}</select></div>{}'
            '<div class="field"><label for="fault-operation">GraphQL operation</label>'
            '<input id="fault-operation" name="operation" type="text" autocomplete="off" '
            'aria-describedby="fault-operation-help">'
            '<p id="fault-operation-help" class="help">Empty: every operation.</p></div>'
            '<div class="field check"><input id="fault-drop" name="drop" type="checkbox">'
            '<label for="fault-drop">Drop the connection instead</label></div></div>',
            options,
            join(
                (
                    _number_field(
                        "status",
                        "Answer with status",
                        "Empty: the real answer.",
                        min="100",
                        max="599",
                    ),
                    _number_field(
                        "retry_after", "Retry-After (seconds)", "Sent with the status.", min="0"
                    ),
                    _number_field(
                        "latency",
                        "Delay (seconds)",
                        "Waited before answering.",
                        min="0",
                        step="0.1",
                    ),
                    _number_field("count", "Times", "Empty: until removed.", min="1"),
                    _number_field(
                        "probability", "Share of requests (%)", "Empty: 100.", min="1", max="100"
                    ),
                )
            ),
        ),
    ]
    return post_form(view, "/inspector/faults", fields, "Add fault rule", form_class="stack")


def _select(name: str, label: str, values: Sequence[tuple[str, str]], chosen: str) -> Markup:
    options = join(
        html(
            '<option value="{}"{}>{}</option>',
            value,
            Markup(" selected") if value == chosen else _NOTHING,
            text,
        )
        for value, text in values
    )
    return html(
        '<div class="field"><label for="filter-{0}">{1}</label>'
        '<select id="filter-{0}" name="{0}"><option value="">Any</option>{2}</select></div>',
        name,
        label,
        options,
    )


def _filters_form(
    view: View,
    filters: RequestFilter,
    users: Sequence[str],
    operations: Sequence[str],
    name_of: NameOf,
) -> Markup:
    statuses = [(s, s) for s in ("2xx", "4xx", "5xx", "401", "403", "429")]
    if filters.status and filters.status not in dict(statuses):
        statuses.append((filters.status, filters.status))
    clear = (
        html(
            ' <a class="button quiet" href="{}/inspector#requests-heading">Show all</a>',
            view.base,
        )
        if filters.active
        else _NOTHING
    )
    return html(
        '<form method="get" action="{}/inspector#requests-heading" class="filters">{}{}{}'
        '<div class="actions"><button type="submit" class="quiet">Filter</button>{}</div>'
        "</form>",
        view.base,
        _select("user", "User", [(u, name_of(u)) for u in users], filters.user),
        _select("status", "Status", statuses, filters.status),
        _select("operation", "Operation", [(o, o) for o in operations], filters.operation),
        clear,
    )


_PRESETS = ((300, "5 minutes"), (3600, "1 hour"), (86400, "1 day"), (400 * 86400, "400 days"))


@dataclass(frozen=True)
class RateLimit:
    """The GraphQL rate limit as the inspector shows it."""

    on: bool
    """Whether it is switched on."""
    per_minute: int | None
    """Requests per minute per key, from the active profile; ``None``: the profile sets none."""

    def wording(self) -> str:
        """What the limit is, in words."""
        if self.per_minute is None:
            return "no limit in the active profile"
        return f"{self.per_minute} requests per minute per key"


def _users_section(view: View, memberships: Sequence[Membership]) -> Markup:
    """Each member with their role picker, and a removal unless they are the last admin."""
    admins: dict[str, int] = {}
    for row in memberships:
        if row.role is Role.ADMIN:
            admins[row.organization.id] = admins.get(row.organization.id, 0) + 1

    def change(row: Membership, index: int) -> Markup:
        last_admin = row.role is Role.ADMIN and admins.get(row.organization.id, 0) <= 1
        return html(
            '<div class="actions">{}{}</div>',
            _role_form(view, row, index),
            _remove_link(view, row, last_admin),
        )

    rows = [
        _row(
            cell("Name", long_text(row.user.name)),
            cell("Organization", long_text(row.organization.name)),
            cell("Role", role_name(row.role)),
            cell("Change", change(row, i)),
        )
        for i, row in enumerate(memberships)
    ]
    return table("Users and roles", ("Name", "Organization", "Role", "Change"), rows, "No users.")


def _clock_section(view: View, now: datetime) -> Markup:
    """The fake's time, a field to advance it and the presets."""
    seconds_field = Markup(
        '<div class="field"><label for="advance-seconds">Advance by (seconds)</label>'
        '<input id="advance-seconds" name="seconds" type="number" min="1" step="1" '
        'inputmode="numeric" required></div>'
    )
    presets = join(
        post_form(view, "/inspector/clock", [hidden("seconds", str(s))], f"+ {label}")
        for s, label in _PRESETS
    )
    return html(
        "<p>The fake's time is {now}. Client tokens expire against it; personal access "
        "tokens never do.</p>{advance}"
        '<div class="actions presets">{presets}</div>',
        now=when(now),
        advance=post_form(view, "/inspector/clock", [seconds_field], "Advance", form_class="stack"),
        presets=presets,
    )


_CLEAR = "Remove every rule"


def _faults_section(view: View, faults: Sequence[FaultRule], rate_limit: RateLimit) -> Markup:
    """The rate limit's state and switch, the fault rules, and the form that clears them."""
    rate_form = post_form(
        view,
        "/inspector/faults",
        [hidden("action", "rate-limit"), hidden("on", "false" if rate_limit.on else "true")],
        "Switch the rate limit off" if rate_limit.on else "Switch the rate limit on",
        css="quiet",
    )
    clear_form = (
        post_form(view, "/inspector/faults", [hidden("action", "clear")], _CLEAR, css="danger")
        if faults or rate_limit.on
        else _NOTHING
    )
    return html(
        '<p class="cap">The GraphQL rate limit ({}) is '
        '<strong>{}</strong>.</p>{}<div class="actions">{}{}</div>',
        rate_limit.wording(),
        "on" if rate_limit.on else "off",
        table(
            "Fault rules",
            ("Rule", "What it does", "Fired", "Action"),
            [_fault_row(view, rule) for rule in faults],
            "No fault rules: every request gets the real answer.",
        ),
        rate_form,
        clear_form,
    )


def inspector(
    view: View,
    memberships: Sequence[Membership],
    now: datetime,
    entries: Sequence[LoggedRequest],
    filters: RequestFilter,
    choices: tuple[Sequence[str], Sequence[str]],
    faults: Sequence[FaultRule],
    rate_limit: RateLimit,
    shown: Notice | None,
    name_of: NameOf,
) -> Document:
    """Users and roles, the clock, the requests, the fault rules and the reset."""
    users, operations = choices
    chosen = (("user", filters.user), ("status", filters.status), ("operation", filters.operation))
    refresh = f"{view.base}/inspector/requests?" + urlencode({k: v for k, v in chosen if v})
    main = html(
        "{notice}<h1>Inspector</h1>"
        '<section aria-labelledby="users-heading"><h2 id="users-heading">Users and roles</h2>'
        "{users}</section>"
        '<section aria-labelledby="clock-heading"><h2 id="clock-heading">Clock</h2>'
        "{clock}</section>"
        '<section aria-labelledby="requests-heading"><h2 id="requests-heading">Requests</h2>'
        "<p class='help'>Newest first, the latest 50 that match; the page's own requests "
        "are left out. Credentials are redacted. "
        '<a href="{base}/inspector#requests-heading">Refresh</a></p>{filters}'
        '<div id="requests" data-refresh="{refresh}">{requests}</div></section>'
        '<section aria-labelledby="faults-heading"><h2 id="faults-heading">Fault rules</h2>'
        '{faults}<h3 id="add-fault-heading">Add a fault rule</h3>{fault_form}</section>'
        '<section aria-labelledby="reset-heading"><h2 id="reset-heading">Reset</h2>'
        "<p>Back to the seeded world: users, tokens, clock, faults and the log.</p>"
        '<p><a class="button danger" href="{base}/inspector/reset">Reset the fake…</a></p>'
        "</section>",
        notice=notice(shown),
        users=_users_section(view, memberships),
        clock=_clock_section(view, now),
        base=view.base,
        filters=_filters_form(view, filters, users, operations, name_of),
        refresh=refresh,
        requests=requests_table(view, entries, name_of),
        faults=_faults_section(view, faults, rate_limit),
        fault_form=_fault_form(view),
    )
    return Document("Inspector", main, section="inspector")
