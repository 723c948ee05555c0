"""The content of the pages a person uses: who you are, tokens, approvals, errors.

Each function takes what the fake answered and returns a :class:`Document`; none of them
calls the fake. A token's full value reaches HTML in exactly one place, :func:`reveal`.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from patgate.errors import DomainError
from patgate.fake.model import PatRecord
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
from patgate.ui.markup import notice as notice_html
from patgate.ui.once import LIFETIME, Notice
from patgate.ui.operations import Membership, PendingRequest
from patgate.ui.words import plain_duration, refusal

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


def _masked(value: str) -> str:
    return f'<code class="masked" title="{escape(value)}">{escape(value)}</code>'


# -- sign in -------------------------------------------------------------------------------


def sign_in(view: View, *, wrong: bool = False) -> Document:
    """Asks for the page's key: the address patgate serve printed carries it."""
    problem = (
        '<p id="key-problem" class="field-error" role="alert" tabindex="-1" data-focus>'
        "That key is not this server's. Each run of patgate serve makes a new one: use the "
        "address the running server printed, or the <code>ui_url</code> of its target file."
        "</p>"
        if wrong
        else ""
    )
    described = "key-help key-problem" if wrong else "key-help"
    invalid = ' aria-invalid="true"' if wrong else ""
    field = (
        '<div class="field"><label for="key">Address or key</label>'
        f'<input id="key" name="key" type="password" required autocomplete="off" '
        f'aria-describedby="{described}"{invalid}>'
        '<p id="key-help" class="help">Paste the address <code>patgate serve</code> printed '
        "(it ends in <code>?key=…</code>), or just the key.</p>"
        f"{problem}</div>"
    )
    main = (
        '<h1 tabindex="-1" data-focus>Sign in to the management page</h1>'
        "<p>This page changes the fake's users, tokens and clock, so it needs the key of "
        "this run. Opening the address the server printed signs you in at once.</p>"
        + post_form(view, "/sign-in", [field], "Sign in", form_class="stack")
    )
    return Document("Sign in", main, status=403 if wrong else 401, bare=True)


def _status_badge(record: PatRecord) -> str:
    if record.status.value == "pending":
        return '<span class="badge pending">Pending approval</span>'
    return '<span class="badge active">Active</span>'


# -- who you are ---------------------------------------------------------------------------


def pick_user(view: View, users: Sequence[Membership], shown: Notice | None = None) -> Document:
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
            + cell("Name", long_text(row.user.name))
            + cell("Email", long_text(row.user.email, css="email"))
            + cell("Organization", long_text(row.organization.name))
            + cell("Role", escape(role_name(row.role)))
            + cell("Action", action)
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
            f"<dt>Name</dt><dd>{long_text(identity.user.name)}</dd>"
            f"<dt>Email</dt><dd>{long_text(identity.user.email, css='email')}</dd>"
            f"<dt>Organization</dt><dd>{long_text(organization)}</dd>"
            f"<dt>Role</dt><dd>{escape(role_name(identity.role))}</dd></dl>"
        )
    main = (
        notice(shown)
        + "<h1>Who you are</h1>"
        + intro
        + f"<h2>{'Pick a user' if identity is None else 'Act as another user'}</h2>"
        + table("Users", ("Name", "Email", "Organization", "Role", "Action"), rows, "No users.")
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
    rows = []
    for record in records:
        delete_href = f"{view.base}/tokens/delete?id={_query(record.id)}"
        rows.append(
            "<tr>"
            + cell("Name", long_text(record.name, css="name"))
            + cell("Token", _masked(record.masked))
            + cell("Created", when(record.created_date))
            + cell("Last used", when(record.last_used_date))
            + cell("Status", _status_badge(record))
            + cell(
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
    if problem is not None:
        what, then = refusal(problem, status, problem.message)
        problem_html = (
            f'<p id="{error_id}" class="field-error" role="alert" tabindex="-1" data-focus>'
            f"{escape(what)} {escape(then)}</p>"
        )
    else:
        problem_html = ""
    invalid = ' aria-invalid="true"' if problem else ""
    field = (
        '<div class="field"><label for="token-name">Token name</label>'
        f'<input id="token-name" name="name" type="text" required maxlength="255" '
        f'autocomplete="off" value="{escape(name)}" aria-describedby="{described}"{invalid}>'
        f'<p id="name-help" class="help">{escape(explain)}</p>{problem_html}</div>'
    )
    button = "Create token" if is_admin else "Request token"
    main = (
        notice_html(shown)
        + "<h1>Personal access tokens</h1>"
        + cap_line
        + table(
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
        f'<textarea id="token-value" class="secret" readonly rows="2" autocomplete="off" '
        f'spellcheck="false" aria-describedby="reveal-warning">{escape(value)}</textarea>'
        '<button type="button" class="quiet" data-copy="token-value" hidden>Copy</button>'
        "</div>"
        '<p class="help" id="copy-status" role="status"></p></div>'
        f'<p><a class="button" href="{escape(view.base)}/tokens">Done, back to my tokens</a></p>'
    )
    return Document(heading, main, section="tokens")


def reveal_shown(view: View, record: PatRecord) -> Document:
    """The reveal's address loaded a second time: the value is gone for good."""
    main = (
        '<h1 tabindex="-1" data-focus>The value was already shown</h1>'
        f"<p>The value of the token <strong>{long_text(record.name)}</strong> "
        f"({_masked(record.masked)}) was shown once, when this address was first opened, "
        "and the fake no longer holds it.</p>"
        "<p>If you did not copy it, delete the token and create a new one.</p>"
        f'<p><a class="button" href="{escape(view.base)}/tokens">Back to my tokens</a></p>'
    )
    return Document("Value already shown", main, section="tokens", status=410)


def reveal_gone(view: View) -> Document:
    """An address of a reveal that expired, or was never this user's."""
    main = (
        '<h1 tabindex="-1" data-focus>Nothing to show here</h1>'
        "<p>This address showed a new token's value once, and only for "
        f"{plain_duration(LIFETIME)} after the create, to the user who created it. It has "
        "expired, or it belongs to another user.</p>"
        "<p>Your tokens list shows every token you hold, masked.</p>"
        f'<p><a class="button" href="{escape(view.base)}/tokens">Back to my tokens</a></p>'
    )
    return Document("Nothing to show", main, section="tokens", status=404)


def confirm_delete(view: View, record: PatRecord) -> Document:
    """Asks before deleting a token."""
    main = (
        f'<h1 tabindex="-1" data-focus>Delete the token “{long_text(record.name)}”?</h1>'
        f"<p>Token {_masked(record.masked)}. Anything that uses it "
        "stops working at once. This cannot be undone.</p>"
        '<div class="actions">'
        + post_form(
            view, "/tokens/delete", [hidden("id", record.id)], "Delete token", css="danger solid"
        )
        + f'<a class="button quiet" href="{escape(view.base)}/tokens">Cancel</a></div>'
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
            + cell("Requester", long_text(request.requester.name))
            + cell("Email", long_text(request.requester.email, css="email"))
            + cell("Token name", long_text(record.name, css="name"))
            + cell("Requested", when(record.created_date))
            + cell("Decision", actions)
            + "</tr>"
        )
    main = (
        notice(shown)
        + "<h1>Approvals</h1>"
        + "<p>Tokens that members of your organization asked for. An approved token works at "
        "once; a rejected request disappears.</p>"
        + table(
            "Pending requests",
            ("Requester", "Email", "Token name", "Requested", "Decision"),
            rows,
            "No requests are waiting.",
        )
    )
    return Document("Approvals", main, section="approvals")


# -- errors --------------------------------------------------------------------------------


def error(view: View, status: int, message: str, problem: DomainError | None = None) -> Document:
    """A refusal, in words: what happened, to what, and what to do next."""
    what, then = refusal(problem, status, message)
    main = (
        f'<h1 tabindex="-1" data-focus>{escape(_TITLES.get(status, "Request refused"))}</h1>'
        f'<p class="problem">{escape(what)}</p>'
        f'<p class="next">{escape(then)}</p>'
        f'<p><a href="{escape(view.base)}/">Back to the start</a></p>'
    )
    return Document(_TITLES.get(status, "Request refused"), main, status=status)


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
