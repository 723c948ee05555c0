"""The target contract: the keys that describe a deployment (docs/design.md), in one place.

``patgate serve --world`` writes exactly these keys, ``patgate run --world`` reads them, and
``patgate.Fake.world`` holds them; other tools rely on the names staying stable.
"""

from __future__ import annotations

__all__ = ["SECRET_KEYS", "TARGET_KEYS"]

TARGET_KEYS: tuple[str, ...] = (
    "auth_url",
    "base_url",
    "graphql_url",
    "client_id",
    "client_secret",
    "organization_id",
    "admin_token",
    "member_token",
    "removed_token",
    "unpermitted_token",
    "pat_prefix",
    "ui_url",
    "control_url",
    "control_token",
)
"""Every key of a target file, in the documented order."""

SECRET_KEYS: tuple[str, ...] = (
    "client_secret",
    "admin_token",
    "member_token",
    "removed_token",
    "unpermitted_token",
    "control_token",
)
"""The keys whose values are credentials: held as ``Secret`` and redacted from all output."""
