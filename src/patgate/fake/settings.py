"""The deployment's settings a test may choose: one table for ``patgate.Fake``, the ``patgate``
marker and the ``patgate_*`` ini options, with one check of each value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from patgate.basics.token_grammar import DEFAULT_PAT_PREFIX, valid_prefix
from patgate.errors import UsageError

__all__ = ["SETTINGS", "Setting", "deployment_settings", "parse_setting"]


@dataclass(frozen=True)
class Setting:
    """One setting: its type, default, smallest value (for integers) and meaning."""

    name: str
    type: type
    default: int | str
    meaning: str
    minimum: int = 0
    choices: tuple[str, ...] = ()
    """The values a text setting may take (any, when empty: the PAT prefix)."""


SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting("expires_in", int, 300, "client token lifetime in seconds", 1),
        Setting("session_expires_in", int, 86400, "the token answer's session_expires_in", 1),
        Setting("max_tokens_per_user", int, 5, "the cap on PATs per user", 1),
        Setting("pat_prefix", str, DEFAULT_PAT_PREFIX, "the PAT prefix"),
        Setting("seed", int, 0, "the world's seed: ids, and names other than the default"),
        Setting(
            "clock",
            str,
            "fake",
            "the fake's own clock (moved by advance_clock), or the system's time.time() "
            "(moved by time-machine or freezegun)",
            choices=("fake", "system"),
        ),
    )
}
"""Every setting by name, in the documented order."""


def _checked(setting: Setting, value: Any) -> int | str:
    if setting.type is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise UsageError(f"{setting.name} must be an integer, got {type(value).__name__}")
        if value < setting.minimum:
            raise UsageError(f"{setting.name} must be at least {setting.minimum}, got {value}")
        return value
    if setting.choices:
        if value not in setting.choices:
            shown = " or ".join(repr(choice) for choice in setting.choices)
            raise UsageError(f"{setting.name} must be {shown}, got {value!r}")
        return str(value)
    if not isinstance(value, str) or not valid_prefix(value):
        raise UsageError(f"{setting.name} must be letters, digits, '_' or '-'")
    return value


def deployment_settings(settings: Mapping[str, Any], *, given_deployment: bool) -> dict[str, Any]:
    """``settings`` checked: known names, right types, sensible values; ``UsageError`` if not.

    With a deployment of the test's own, settings would be silently ignored: refused too.
    """
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise UsageError(f"unknown fake settings {unknown}; known: {list(SETTINGS)}")
    if settings and given_deployment:
        raise UsageError(
            f"settings {sorted(settings)} apply to the fake's own deployment; "
            "pass them to Deployment(...) instead"
        )
    return {name: _checked(SETTINGS[name], value) for name, value in settings.items()}


def parse_setting(name: str, text: str) -> int | str:
    """An ini option's text as the setting's value (checked)."""
    setting = SETTINGS[name]
    if setting.type is int:
        try:
            number = int(text.strip())
        except ValueError:
            raise UsageError(f"{name} must be an integer, got {text.strip()!r}") from None
        return _checked(setting, number)
    return _checked(setting, text.strip())
