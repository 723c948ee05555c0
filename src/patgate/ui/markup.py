"""The page's HTML shell and the small pieces every page is built from.

HTML is built through markupsafe, escaping by default: a fragment of finished HTML is a
:class:`~markupsafe.Markup`, made only by :func:`html` (a template whose ``{}`` fields are
escaped unless they are ``Markup`` themselves) or :func:`join`; any other value placed in
one, a name or a message from the fake, is escaped on the way in. Every piece here takes
``Markup`` where it takes HTML, so a plain string passed as HTML is a type error, not an
injection. No external asset is referenced: the style sheet and the script are served by
the page itself, so it works offline.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from markupsafe import Markup
from markupsafe import escape as _escape

from patgate.fake.model import Role
from patgate.ui.one_time_handles import Notice
from patgate.ui.operations import Identity
from patgate.ui.readable_text import exact_time, readable_time

__all__ = [
    "Document",
    "Markup",
    "View",
    "cell",
    "escape",
    "hidden",
    "html",
    "join",
    "long_text",
    "notice",
    "post_form",
    "render_document",
    "role_name",
    "table",
    "when",
]


def escape(value: object) -> Markup:
    """``value`` as text that is safe in HTML content and quoted attributes.

    A character that cannot be encoded (a lone surrogate) or that would hide or reorder the
    text around it (controls, bidirectional overrides and isolates, invisible formatting
    characters, line separators) is shown as its code point, ``<U+202E>``: a name stored
    before names were checked (an old state file) still renders, and honestly.
    """
    if isinstance(value, Markup):
        return value
    text = str(value)
    if _HIDDEN.search(text) is not None:
        text = _HIDDEN.sub(lambda found: f"<U+{ord(found.group()):04X}>", text)
    return _escape(text)


# Tab, line feed and carriage return excepted: they are ordinary whitespace in HTML.
_HIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f"
    "\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\U000110bd\U0001d173-\U0001d17a\U000e0001-\U000e007f]"
)


def html(template: str, /, *values: object, **named: object) -> Markup:
    """``template`` (literal HTML) with its ``{}`` fields filled in, each escaped unless it is
    ``Markup`` already."""
    # The one place a template becomes Markup: callers pass literal HTML, never a value.
    # Fields go through escape() above, so hidden characters show as code points here too.
    shown = [_shown(v) for v in values]
    named_shown = {k: _shown(v) for k, v in named.items()}
    return Markup(template).format(*shown, **named_shown)  # noqa: S704


def _shown(value: object) -> object:
    # Text goes through escape() (hidden characters as code points); numbers keep their
    # type, so a template's format spec still applies to them.
    return escape(value) if isinstance(value, str) else value


def join(parts: Iterable[str | Markup], separator: str = "") -> Markup:
    """``parts`` one after the other; any that is not ``Markup`` is escaped."""
    # The separator is literal text.
    return Markup(separator).join(escape(part) for part in parts)  # noqa: S704


_ROLE_NAMES = {
    Role.ADMIN: "Admin",
    Role.MEMBER: "Member",
    Role.RESTRICTED: "Member, no content",
}


def role_name(role: Role | None) -> str:
    """A role as people say it; ``None`` is a user removed from the organization."""
    return _ROLE_NAMES[role] if role is not None else "Not a member"


@dataclass(frozen=True)
class View:
    """What every page needs to draw links and forms for one request."""

    base: str
    """The page's path prefix, e.g. ``/ui``."""
    csrf: str
    """The hidden field every form carries."""
    identity: Identity | None


@dataclass(frozen=True)
class Document:
    """One page to send: its status, title, section (for the navigation) and main content."""

    title: str
    main: Markup
    section: str = ""
    status: int = 200
    headers: tuple[tuple[str, str], ...] = field(default=())
    bare: bool = False
    """No navigation and no "signed in as" line (the sign-in page)."""


def hidden(name: str, value: str) -> Markup:
    """A hidden form field."""
    return html('<input type="hidden" name="{}" value="{}">', name, value)


def post_form(
    view: View, action: str, fields: Iterable[Markup], button: Markup | str, **options: str
) -> Markup:
    """A ``POST`` form to ``action`` (under the page's base) with the CSRF field.

    ``fields`` are finished HTML (hidden fields, labelled inputs); ``button`` is the button's
    label (text, or ``Markup``). ``options``: ``css`` adds classes to the button (``danger``,
    ``quiet``), ``form_class`` to the form.
    """
    return html(
        '<form method="post" action="{}" class="{}">{}{}'
        '<button type="submit" class="{}">{}</button></form>',
        view.base + action,
        options.get("form_class", "inline"),
        hidden("csrf", view.csrf),
        join(fields),
        options.get("css", ""),
        button,
    )


def notice(shown: Notice | None) -> Markup:
    """A message about the last action (none: nothing); it takes the focus when the page
    loads. ``success`` and ``info`` are status messages, ``error`` an alert."""
    if shown is None:
        return Markup("")
    role = "alert" if shown.kind == "error" else "status"
    return html(
        '<div id="notice" class="notice {}" role="{}" tabindex="-1" data-focus>{}</div>',
        shown.kind,
        role,
        shown.text,
    )


def when(moment: datetime | None) -> Markup:
    """A readable UTC date in a ``<time>`` element, the exact instant in its title; "never"
    for none."""
    if moment is None:
        return Markup('<span class="muted">never</span>')
    exact = exact_time(moment)
    return html('<time datetime="{0}" title="{0}">{1}</time>', exact, readable_time(moment))


def long_text(value: str, *, css: str = "") -> Markup:
    """A value that may be long (a name, an email): wraps anywhere, the whole of it in the
    title."""
    shown = escape(value)
    if "email" in css.split():
        # Break an email at its @ and dots, never mid-word.
        # ``shown`` is escaped already: only the <wbr> elements added here are markup.
        shown = Markup(shown.replace("@", "<wbr>@").replace(".", ".<wbr>"))  # noqa: S704
    return html('<span class="long {}" title="{}">{}</span>', css, value, shown)


def cell(label: str, content: Markup | str) -> Markup:
    """A table cell; ``label`` heads it when narrow screens stack the row."""
    return html('<td data-label="{}">{}</td>', label, content)


def table(
    caption: str, headings: Sequence[str], rows: Sequence[Markup], empty: str, *, css: str = ""
) -> Markup:
    """A table of finished ``rows``, or the sentence ``empty`` when there are none."""
    if not rows:
        return html('<p class="empty">{}</p>', empty)
    head = join(html('<th scope="col">{}</th>', h) for h in headings)
    css_attr = html(' class="{}"', css) if css else Markup("")
    return html(
        '<table{}><caption class="visually-hidden">{}</caption>'
        "<thead><tr>{}</tr></thead><tbody>{}</tbody></table>",
        css_attr,
        caption,
        head,
        join(rows),
    )


_SECTIONS = (
    ("who", "", "Who you are"),
    ("tokens", "/tokens", "Tokens"),
    ("approvals", "/approvals", "Approvals"),
    ("inspector", "/inspector", "Inspector"),
)


def _navigation(view: View, section: str) -> Markup:
    items = []
    for key, path, label in _SECTIONS:
        if key == "approvals" and not (view.identity and view.identity.is_admin):
            continue  # only admins approve; the page itself refuses anyone else as well
        current = Markup(' aria-current="page"') if key == section else Markup("")
        items.append(
            html('<li><a href="{}"{}>{}</a></li>', view.base + (path or "/"), current, label)
        )
    return html('<nav aria-label="Sections"><ul>{}</ul></nav>', join(items))


def _who_line(view: View) -> Markup:
    identity = view.identity
    if identity is None:
        return Markup('<p class="who">Nobody picked yet</p>')
    organization = identity.organization.name if identity.organization else "no organization"
    return html(
        '<p class="who"><span class="label">Signed in as</span> <strong>{}</strong> '
        '<span class="role">{}</span> <span class="org">{}</span></p>',
        long_text(identity.user.name),
        role_name(identity.role),
        organization,
    )


def render_document(view: View, document: Document) -> str:
    """The whole HTML document for ``document`` (``bare``: no navigation, for sign-in)."""
    chrome = (
        Markup("</div>")
        if document.bare
        else html("{}</div>{}", _who_line(view), _navigation(view, document.section))
    )
    page = html(
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>{title} · patgate</title>"
        '<link rel="icon" href="{base}/assets/icon.svg" type="image/svg+xml">'
        '<link rel="stylesheet" href="{base}/assets/page.css">'
        '<script src="{base}/assets/page.js" defer></script>'
        "</head><body>"
        '<a class="skip" href="#main">Skip to content</a>'
        '<header><div class="bar">'
        '<p class="brand"><a href="{base}/">patgate</a> <span>management (fake)</span></p>'
        "{chrome}</header>"
        '<main id="main" tabindex="-1">{main}</main>'
        "</body></html>\n",
        title=document.title,
        base=view.base,
        chrome=chrome,
        main=document.main,
    )
    return str(page)
