"""The page's HTML shell and the small pieces every page is built from.

Every value that comes from the fake or the request goes through :func:`escape`; the pieces
here return ``str`` of finished HTML. No external asset is referenced: the style sheet and
the script are served by the page itself, so it works offline.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from patgate.fake.clock import format_timestamp
from patgate.fake.model import Role
from patgate.ui.operations import Identity

__all__ = [
    "Document",
    "View",
    "cell",
    "escape",
    "hidden",
    "notice",
    "post_form",
    "render_document",
    "role_name",
    "table",
    "when",
]


def escape(value: object) -> str:
    """``value`` as text that is safe in HTML content and quoted attributes.

    A character that cannot be encoded (a lone surrogate) or that would hide or reorder the
    text around it (controls, bidirectional overrides and isolates, invisible formatting
    characters, line separators) is shown as its code point, ``<U+202E>``: a name stored
    before names were checked (an old state file) still renders, and honestly.
    """
    text = str(value)
    if _HIDDEN.search(text) is not None:
        text = _HIDDEN.sub(lambda found: f"<U+{ord(found.group()):04X}>", text)
    return html.escape(text, quote=True)


# Tab, line feed and carriage return excepted: they are ordinary whitespace in HTML.
_HIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f"
    "\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
    "\ud800-\udfff\U000110bd\U0001d173-\U0001d17a\U000e0001-\U000e007f]"
)


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
    main: str
    section: str = ""
    status: int = 200
    headers: tuple[tuple[str, str], ...] = field(default=())


def hidden(name: str, value: str) -> str:
    """A hidden form field."""
    return f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'


def post_form(view: View, action: str, fields: Iterable[str], button: str, **options: str) -> str:
    """A ``POST`` form to ``action`` (under the page's base) with the CSRF field.

    ``fields`` are finished HTML (hidden fields, labelled inputs). ``options``: ``css`` adds
    classes to the button (``danger``, ``quiet``), ``form_class`` to the form.
    """
    css = options.get("css", "")
    form_class = options.get("form_class", "inline")
    inner = "".join(fields)
    return (
        f'<form method="post" action="{escape(view.base + action)}" class="{escape(form_class)}">'
        f"{hidden('csrf', view.csrf)}{inner}"
        f'<button type="submit" class="{escape(css)}">{button}</button></form>'
    )


def notice(text: str, *, kind: str = "success") -> str:
    """A message about the last action; it takes the focus when the page loads.

    ``kind`` is ``success`` (a status message) or ``error`` (an alert).
    """
    role = "alert" if kind == "error" else "status"
    return (
        f'<div id="notice" class="notice {escape(kind)}" role="{role}" tabindex="-1" '
        f"data-focus>{escape(text)}</div>"
    )


def when(moment: datetime | None) -> str:
    """A timestamp as the API writes it, in a ``<time>`` element; "never" for none."""
    if moment is None:
        return '<span class="muted">never</span>'
    text = format_timestamp(moment)
    return f'<time datetime="{escape(text)}">{escape(text)}</time>'


def cell(label: str, content: str) -> str:
    """A table cell; ``label`` heads it when narrow screens stack the row."""
    return f'<td data-label="{escape(label)}">{content}</td>'


def table(caption: str, headings: Sequence[str], rows: Sequence[str], empty: str) -> str:
    """A table of finished ``rows``, or the sentence ``empty`` when there are none."""
    if not rows:
        return f'<p class="empty">{escape(empty)}</p>'
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in headings)
    return (
        f'<table><caption class="visually-hidden">{escape(caption)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


_SECTIONS = (
    ("who", "", "Who you are"),
    ("tokens", "/tokens", "Tokens"),
    ("approvals", "/approvals", "Approvals"),
    ("inspector", "/inspector", "Inspector"),
)


def _navigation(view: View, section: str) -> str:
    items = []
    for key, path, label in _SECTIONS:
        if key == "approvals" and not (view.identity and view.identity.is_admin):
            continue  # only admins approve; the page itself refuses anyone else as well
        current = ' aria-current="page"' if key == section else ""
        href = escape(view.base + (path or "/"))
        items.append(f'<li><a href="{href}"{current}>{escape(label)}</a></li>')
    return f'<nav aria-label="Sections"><ul>{"".join(items)}</ul></nav>'


def _who_line(view: View) -> str:
    identity = view.identity
    if identity is None:
        return '<p class="who">Nobody picked yet</p>'
    organization = identity.organization.name if identity.organization else "no organization"
    return (
        f'<p class="who"><span class="label">Signed in as</span> '
        f"<strong>{escape(identity.user.name)}</strong> "
        f'<span class="role">{escape(role_name(identity.role))}</span> '
        f'<span class="org">{escape(organization)}</span></p>'
    )


def render_document(view: View, document: Document) -> str:
    """The whole HTML document for ``document``."""
    base = escape(view.base)
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(document.title)} · patgate</title>"
        f'<link rel="icon" href="{base}/assets/icon.svg" type="image/svg+xml">'
        f'<link rel="stylesheet" href="{base}/assets/page.css">'
        f'<script src="{base}/assets/page.js" defer></script>'
        "</head><body>"
        '<a class="skip" href="#main">Skip to content</a>'
        '<header><div class="bar">'
        f'<p class="brand"><a href="{base}/">patgate</a> <span>management (fake)</span></p>'
        f"{_who_line(view)}</div>{_navigation(view, document.section)}</header>"
        f'<main id="main" tabindex="-1">{document.main}</main>'
        "</body></html>\n"
    )
