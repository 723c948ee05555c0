"""A griffe extension for the site's Python API page: the docstrings' reStructuredText roles
(``:class:`~patgate.Fake```, ``:meth:`start```) shown as Markdown code (`` `patgate.Fake` ``),
since mkdocstrings renders docstrings as Markdown."""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`~?([^`]+)`")


def plain_roles(text: str) -> str:
    """``text`` with every role written as a code span of its target."""
    return _ROLE.sub(r"`\1`", text)


class RstRoles(griffe.Extension):
    """Rewrites each loaded object's docstring (see the module's docstring)."""

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        """Called by griffe for every object it loads."""
        if obj.docstring is not None:
            obj.docstring.value = plain_roles(obj.docstring.value)
