"""The content of the pages a person uses: who you are, tokens, approvals, errors.

Each function takes what the fake answered and returns a :class:`Document`; none of them
calls the fake. HTML is built with :func:`~patgate.ui.markup.html` (escaping by default).
A token's full value reaches HTML in exactly one place, :func:`reveal`.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from patgate.errors import DomainError
from patgate.fake.model import PatRecord
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
from patgate.ui.markup import notice as notice_html
from patgate.ui.one_time_handles import LIFETIME, Notice
from patgate.ui.operations import Membership, PendingRequest
from patgate.ui.readable_text import plain_duration, refusal

__all__ = [
    "approvals",
    "confirm_delete",
    "error",
    "pick_user",
    "reveal",
    "reveal_gone",
    "reveal_shown",
    "role_name",
    "sign_in",
    "tokens",
]

_NOTHING = Markup("")


def _masked(value: str) -> Markup:
    return html('<code class="masked" title="{0}">{0}</code>', value)


def _hidden_label(text: str) -> Markup:
    """Words a screen reader says after a button's visible label."""
    return html('<span class="visually-hidden"> {}</span>', text)


# -- sign in -------------------------------------------------------------------------------


def sign_in(view: View, *, wrong: bool = False) -> Document:
    """Asks for the page's key: the address patgate serve printed carries it."""
    problem = (
        Markup(
            '<p id="key-problem" class="field-error" role="alert" tabindex="-1" data-focus>'
            "That key is not this server's. Each run of patgate serve makes a new one: use "
            "the address the running server printed, or the <code>ui_url</code> of its "
            "target file.</p>"
        )
        if wrong
        else _NOTHING
    )
    field = html(
        '<div class="field"><label for="key">Address or key</label>'
        '<input id="key" name="key" type="password" required autocomplete="off" '
        'aria-describedby="{}"{}>'
        '<p id="key-help" class="help">Paste the address <code>patgate serve</code> printed '
        "(it ends in <code>?key=…</code>), or just the key.</p>{}</div>",
        "key-help key-problem" if wrong else "key-help",
        Markup(' aria-invalid="true"') if wrong else _NOTHING,
        problem,
    )
    main = html(
        '<h1 tabindex="-1" data-focus>Sign in to the management page</h1>'
        "<p>This page changes the fake's users, tokens and clock, so it needs the key of "
        "this run. Opening the address the server printed signs you in at once.</p>{}",
        post_form(view, "/sign-in", [field], "Sign in", form_class="stack"),
    )
    return Document("Sign in", main, status=403 if wrong else 401, bare=True)


def _status_badge(record: PatRecord) -> Markup:
    if record.status.value == "pending":
        return Markup('<span class="badge pending">Pending approval</span>')
    return Markup('<span class="badge active">Active</span>')


# -- who you are ---------------------------------------------------------------------------


def pick_user(view: View, users: Sequence[Membership], shown: Notice | None = None) -> Document:
    """The list of the world's users, each with a button to act as them."""
    rows = []
    for row in users:
        current = view.identity is not None and view.identity.user.id == row.user.id
        action = (
            Markup('<span class="badge active">You</span>')
            if current
            else post_form(
                view,
                "/session",
                [hidden("user", row.user.id)],
                html("Act as{}", _hidden_label(row.user.name)),
                css="quiet",
            )
        )
        rows.append(
            html(
                "<tr>{}</tr>",
                join(
                    (
                        cell("Name", long_text(row.user.name)),
                        cell("Email", long_text(row.user.email, css="email")),
                        cell("Organization", long_text(row.organization.name)),
                        cell("Role", role_name(row.role)),
                        cell("Action", action),
                    )
                ),
            )
        )
    identity = view.identity
    if identity is None:
        intro = Markup(
            "<p>This is the fake's management page. Pick the user you want to act as; "
            "there are no passwords.</p>"
        )
    else:
        organization = identity.organization.name if identity.organization else "none"
        intro = html(
            '<dl class="facts"><dt>Name</dt><dd>{}</dd><dt>Email</dt><dd>{}</dd>'
            "<dt>Organization</dt><dd>{}</dd><dt>Role</dt><dd>{}</dd></dl>",
            long_text(identity.user.name),
            long_text(identity.user.email, css="email"),
            long_text(organization),
            role_name(identity.role),
        )
    main = html(
        "{}<h1>Who you are</h1>{}<h2>{}</h2>{}",
        notice(shown),
        intro,
        "Pick a user" if identity is None else "Act as another user",
        table("Users", ("Name", "Email", "Organization", "Role", "Action"), rows, "No users."),
    )
    return Document("Who you are", main, section="who")


# -- tokens --------------------------------------------------------------------------------


def tokens(
    view: View,
    records: Sequence[PatRecord],
    cap: int,
    *,
    notice: Notice | None = None,
    problem: DomainError | None = None,
    status: int = 200,
    name: str = "",
) -> Document:
    """The person's tokens, the create form, and the cap.

    ``notice`` reports the last action; ``problem`` is the fake's refusal of a create, shown
    beside the form with the name the person typed kept.
    """
    shown = notice  # the parameter hides markup's notice(): notice_html() draws it
    is_admin = view.identity is not None and view.identity.is_admin
    button = "Create token" if is_admin else "Request token"
    field = _name_field(name, is_admin, problem, status)
    main = html(
        "{}<h1>Personal access tokens</h1>{}{}<h2>{}</h2>{}",
        notice_html(shown),
        _cap_line(len(records), cap),
        table(
            "Your tokens",
            ("Name", "Token", "Created", "Last used", "Status", "Action"),
            [_token_row(view, record) for record in records],
            "You have no tokens yet.",
        ),
        button,
        post_form(view, "/tokens", [field], button, form_class="stack"),
    )
    return Document("Tokens", main, section="tokens", status=status)


def _token_row(view: View, record: PatRecord) -> Markup:
    """One token: its name, masked value, dates, status and a link to delete it."""
    delete_href = f"{view.base}/tokens/delete?id={_query(record.id)}"
    delete = html(
        '<a class="button danger" href="{}">Delete{}</a>',
        delete_href,
        _hidden_label(record.name),
    )
    cells = (
        cell("Name", long_text(record.name, css="name")),
        cell("Token", _masked(record.masked)),
        cell("Created", when(record.created_date)),
        cell("Last used", when(record.last_used_date)),
        cell("Status", _status_badge(record)),
        cell("Action", delete),
    )
    return html("<tr>{}</tr>", join(cells))


def _cap_line(held: int, cap: int) -> Markup:
    """How many tokens the person holds of the cap; at the cap, what to do first."""
    full = held >= cap
    return html(
        '<p id="cap" class="cap{}">You hold {} of {} tokens.{}</p>',
        " full" if full else "",
        held,
        cap,
        " Delete one before creating another." if full else "",
    )


def _name_field(name: str, is_admin: bool, problem: DomainError | None, status: int) -> Markup:
    """The create form's name field: what happens next, and the refusal beside it."""
    explain = (
        "As an admin, your token is usable at once. Its value is shown once, right after you "
        "create it."
        if is_admin
        else "Your request goes to an organization admin; the token is listed as pending and "
        "cannot be used until they approve it."
    )
    if problem is not None:
        what, then = refusal(problem, status, problem.message)
        problem_html = html(
            '<p id="name-problem" class="field-error" role="alert" tabindex="-1" data-focus>'
            "{} {}</p>",
            what,
            then,
        )
    else:
        problem_html = _NOTHING
    return html(
        '<div class="field"><label for="token-name">Token name</label>'
        '<input id="token-name" name="name" type="text" required maxlength="255" '
        'autocomplete="off" value="{}" aria-describedby="{}"{}>'
        '<p id="name-help" class="help">{}</p>{}</div>',
        name,
        "cap name-help name-problem" if problem else "cap name-help",
        Markup(' aria-invalid="true"') if problem else _NOTHING,
        explain,
        problem_html,
    )


def reveal(view: View, record: PatRecord, value: str) -> Document:
    """The one page that shows a token's full value, right after it was created or requested.

    An admin's token works at once; a member's waits for an admin's approval and works from
    then on with the value shown here.
    """
    if record.status.value == "pending":
        heading = "Token requested"
        state = html(
            "Your request <strong>{}</strong> was sent to an organization admin. The token is "
            "listed as pending and works once they approve it.",
            long_text(record.name),
        )
    else:
        heading = "Token created"
        state = html(
            "Your token <strong>{}</strong> is active and can be used at once.",
            long_text(record.name),
        )
    main = html(
        '<h1 id="reveal-heading" tabindex="-1" data-focus>{}</h1><p>{}</p>'
        '<p id="reveal-warning" class="warning"><strong>Copy the value now.</strong> '
        "It will not be shown again: afterwards only its masked form is listed.</p>"
        '<div class="field"><label for="token-value">Token value</label>'
        '<div class="copy-row">'
        '<textarea id="token-value" class="secret" readonly rows="3" autocomplete="off" '
        'spellcheck="false" aria-describedby="reveal-warning">{}</textarea>'
        '<button type="button" class="quiet" data-copy="token-value" hidden>Copy</button>'
        "</div>"
        '<p class="help" id="copy-status" role="status"></p></div>'
        '<p><a class="button" href="{}/tokens">Done, back to my tokens</a></p>',
        heading,
        state,
        value,
        view.base,
    )
    return Document(heading, main, section="tokens")


def reveal_shown(view: View, record: PatRecord) -> Document:
    """The reveal's address loaded a second time: the value is gone for good."""
    main = html(
        '<h1 tabindex="-1" data-focus>The value was already shown</h1>'
        "<p>The value of the token <strong>{}</strong> ({}) was shown once, when this "
        "address was first opened, and the fake no longer holds it.</p>"
        "<p>If you did not copy it, delete the token and create a new one.</p>"
        '<p><a class="button" href="{}/tokens">Back to my tokens</a></p>',
        long_text(record.name),
        _masked(record.masked),
        view.base,
    )
    return Document("Value already shown", main, section="tokens", status=410)


def reveal_gone(view: View) -> Document:
    """An address of a reveal that expired, or was never this user's."""
    main = html(
        '<h1 tabindex="-1" data-focus>Nothing to show here</h1>'
        "<p>This address showed a new token's value once, and only for {} after the create, "
        "to the user who created it. It has expired, or it belongs to another user.</p>"
        "<p>Your tokens list shows every token you hold, masked.</p>"
        '<p><a class="button" href="{}/tokens">Back to my tokens</a></p>',
        plain_duration(LIFETIME),
        view.base,
    )
    return Document("Nothing to show", main, section="tokens", status=404)


def confirm_delete(view: View, record: PatRecord) -> Document:
    """Asks before deleting a token."""
    main = html(
        '<h1 tabindex="-1" data-focus>Delete the token “{}”?</h1>'
        "<p>Token {}. Anything that uses it stops working at once. This cannot be undone.</p>"
        '<div class="actions">{}<a class="button quiet" href="{}/tokens">Cancel</a></div>',
        long_text(record.name),
        _masked(record.masked),
        post_form(
            view, "/tokens/delete", [hidden("id", record.id)], "Delete token", css="danger solid"
        ),
        view.base,
    )
    return Document("Delete token", main, section="tokens")


# -- approvals -----------------------------------------------------------------------------


def approvals(
    view: View, pending: Sequence[PendingRequest], shown: Notice | None = None
) -> Document:
    """The organization's pending requests, each with approve and reject."""
    rows = []
    for request in pending:
        record = request.record
        label = _hidden_label(record.name)
        actions = html(
            '<div class="actions">{}{}</div>',
            post_form(
                view,
                "/approvals",
                [hidden("id", record.id), hidden("decision", "approve")],
                html("Approve{}", label),
            ),
            post_form(
                view,
                "/approvals",
                [hidden("id", record.id), hidden("decision", "reject")],
                html("Reject{}", label),
                css="danger",
            ),
        )
        rows.append(
            html(
                "<tr>{}</tr>",
                join(
                    (
                        cell("Requester", long_text(request.requester.name)),
                        cell("Email", long_text(request.requester.email, css="email")),
                        cell("Token name", long_text(record.name, css="name")),
                        cell("Requested", when(record.created_date)),
                        cell("Decision", actions),
                    )
                ),
            )
        )
    main = html(
        "{}<h1>Approvals</h1><p>Tokens that members of your organization asked for. An "
        "approved token works at once; a rejected request disappears.</p>{}",
        notice(shown),
        table(
            "Pending requests",
            ("Requester", "Email", "Token name", "Requested", "Decision"),
            rows,
            "No requests are waiting.",
        ),
    )
    return Document("Approvals", main, section="approvals")


# -- errors --------------------------------------------------------------------------------


def error(view: View, status: int, message: str, problem: DomainError | None = None) -> Document:
    """A refusal, in words: what happened, to what, and what to do next."""
    what, then = refusal(problem, status, message)
    title = _TITLES.get(status, "Request refused")
    main = html(
        '<h1 tabindex="-1" data-focus>{}</h1><p class="problem">{}</p><p class="next">{}</p>'
        '<p><a href="{}/">Back to the start</a></p>',
        title,
        what,
        then,
        view.base,
    )
    return Document(title, main, status=status)


_TITLES = {
    400: "Bad request",
    401: "Sign in first",
    403: "Not allowed",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    410: "Gone",
    413: "Too large",
    415: "Not a form",
}


def _query(value: str) -> str:
    return quote(value, safe="")
