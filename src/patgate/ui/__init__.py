"""The fake's management page: the spec's "management user interface", rendered on the server.

:class:`~patgate.ui.site.ManagementUi` answers every request under ``{base_url}/ui`` (the
target file's ``ui_url``): pick who you are, your personal access tokens (create, request,
one-time reveal, delete), approvals for admins, and an inspector for the person testing
(users and roles, the clock, the latest requests, the active faults). Every action goes
through :class:`~patgate.ui.operations.UiOperations` into the fake's domain; the page has no
rules of its own.
"""

from __future__ import annotations

__all__: list[str] = []
