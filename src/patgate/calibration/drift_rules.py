"""What counts as drift: node-by-node shape differences, noise, and accepted differences.

A shape (``shapes.<answer>``) is compared node by node by the fake's differ
(:func:`patgate.fake.answer_shapes.shape_differences`): each difference is named by its
dotted path (``shapes.hub.body.keys.plan``); values are never compared, only structure, so
ids, ``jti``, ``iat`` and timestamps never differ. A difference only in a value that changes
on every call is noise: a shape's ``sample``, or ``client_token.expires_in`` a few seconds
below the fake's (a deployment may count down the lifetime of a token it hands out again).
A profile's ``accepted`` entries (field, reason, expires) turn the drift they name (that
field or any below it) into an accepted difference until the day they expire; an expired
entry accepts nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from patgate.calibration.fields import SHAPE_PREFIX
from patgate.fake.answer_shapes import ABSENT

__all__ = ["EXPIRES_IN_SLACK", "Acceptance", "AcceptedEntry", "differences"]

EXPIRES_IN_SLACK = 5
"""Seconds ``expires_in`` may fall short of the fake's and still be the same lifetime."""
_SAMPLE = "a sample value: it changes from call to call"


def _noise(name: str, fake_value: Any, target_value: Any) -> str:
    """Why a difference is noise (empty: it is drift)."""
    if name.startswith(SHAPE_PREFIX) and name.endswith(".sample"):
        return _SAMPLE
    if name == "client_token.expires_in":
        numbers = all(
            isinstance(v, int) and not isinstance(v, bool) for v in (fake_value, target_value)
        )
        if numbers and 0 < fake_value - target_value <= EXPIRES_IN_SLACK:
            return f"within {EXPIRES_IN_SLACK} s of the recorded lifetime (counted down)"
    return ""


def _sample_differences(path: str, mine: Any, theirs: Any) -> list[tuple[str, Any, Any]]:
    """Where both shapes carry a ``sample`` and the two differ (the differ compares no
    value; these are listed as noise)."""
    if not (isinstance(mine, Mapping) and isinstance(theirs, Mapping)):
        return []
    found: list[tuple[str, Any, Any]] = []
    if "sample" in mine and "sample" in theirs and mine["sample"] != theirs["sample"]:
        found.append((f"{path}.sample", mine["sample"], theirs["sample"]))
    for key in ("body", "items", "keys"):
        if key in mine and key in theirs:
            found += _sample_differences(f"{path}.{key}", mine[key], theirs[key])
    if path.endswith(".keys"):
        for name in mine:
            if name in theirs:
                found += _sample_differences(f"{path}.{name}", mine[name], theirs[name])
    return found


def _sides(where: str, detail: str) -> tuple[str, Any, Any]:
    """A shape difference as ``(where, the fake's side, the target's side)``."""
    if detail == ABSENT:
        return where, "present", "absent"
    if detail.startswith("extra"):
        return where, "absent", detail
    fake, _, target = detail.partition(" -> ")
    return where, fake, target


def differences(name: str, mine: Any, theirs: Any) -> list[tuple[str, Any, Any, str]]:
    """Each difference of field ``name`` between the fake's answer (``mine``) and the
    target's: ``(where, fake, target, why it is noise or "")``; empty when alike."""
    if name.startswith(SHAPE_PREFIX) and isinstance(mine, Mapping) and isinstance(theirs, Mapping):
        from patgate.fake.answer_shapes import shape_differences

        found = [_sides(f"{name}.{d.path}", d.detail) for d in shape_differences(mine, theirs)]
        found += _sample_differences(name, mine, theirs)
    else:
        found = [] if mine == theirs else [(name, mine, theirs)]
    return [(where, a, b, _noise(where, a, b)) for where, a, b in found]


@dataclass(frozen=True)
class AcceptedEntry:
    """One ``accepted`` entry of a profile."""

    field: str
    reason: str
    expires: str
    """The last day (ISO 8601 date) the difference is accepted."""

    def covers(self, name: str, today: dt.date) -> bool:
        """Whether this entry accepts a difference at ``name`` on ``today``."""
        named = name == self.field or name.startswith(self.field + ".")
        return named and today <= dt.date.fromisoformat(self.expires)


class Acceptance:
    """A profile's ``accepted`` entries, judged on one day."""

    def __init__(self, entries: Iterable[AcceptedEntry], today: dt.date | None = None) -> None:
        self.entries = tuple(entries)
        self.today = today or dt.datetime.now(dt.timezone.utc).date()

    @classmethod
    def of_document(cls, document: Mapping[str, Any], today: dt.date | None = None) -> Acceptance:
        """The entries of a profile document's ``accepted`` list (the loader checked them)."""
        entries = [
            AcceptedEntry(str(e["field"]), str(e.get("reason", "")), str(e["expires"]))
            for e in document.get("accepted") or ()
            if isinstance(e, Mapping)
        ]
        return cls(entries, today)

    def covering(self, name: str) -> AcceptedEntry | None:
        """The unexpired entry that accepts a difference at ``name``, if any."""
        return next((e for e in self.entries if e.covers(name, self.today)), None)
