"""A calibrated profile: the default profile with what the target showed otherwise.

A field the target answered as the default fake does keeps the default's value (a ``null``
message stays the fake's own wording); a field it answered otherwise takes the target's
answer; a field no probe could see keeps the default and is listed, with the reason, in a
comment block at the end of the file (the loader reads comments as nothing) and on the
terminal. An answer a profile cannot hold (a delete result of another scalar type, an order
that is none of the three) is listed the same way.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from patgate.calibration.probes import FIELDS, NOT_PROFILE_FIELDS, ProbeResult

__all__ = ["NEVER_PROBED", "Calibration", "calibrated_document", "render_profile"]

NEVER_PROBED: Mapping[str, str] = {
    "refusals.token_limit.status": "only a create over the cap meets this refusal, inside an "
    "executed GraphQL request (its status is compared as graphql_refusal_status.token_limit)",
    "refusals.rate_limited.status": "a probe never goes over the rate limit",
    "refusals.rate_limited.code": "a probe never goes over the rate limit",
    "refusals.rate_limited.message": "a probe never goes over the rate limit",
    **dict.fromkeys(
        (
            "hubs.order",
            "pages.over_maximum",
            "pages.links",
            "rate_limit.announce",
            "date_offset.lastUsedDate",
            "date_offset.hubs",
            "pat_creation.client_credentials",
            "graphql.refusal_status",
            "content_errors.format",
            "refusal_messages",
            "accepted",
            "shapes",
        ),
        "no probe reads it yet: write it by hand (docs/profile.md)",
    ),
}
"""Profile fields no probe looks at, and why."""

_ALLOWED: Mapping[str, tuple[Any, ...]] = {
    "delete_result.shape": ("boolean", "object"),
    "listing_order": ("created_ascending", "created_descending", "name_ascending"),
    "date_precision.lastUsedDate": ("milliseconds", "seconds"),
    "hubs.date_precision": ("milliseconds", "seconds"),
}
_CARRIES = ("token_id", "true", "name")


class Calibration:
    """The calibrated document and the fields it could not set (field -> reason)."""

    def __init__(self, document: dict[str, Any], not_observed: dict[str, str]) -> None:
        self.document = document
        self.not_observed = not_observed
        self.adopted: dict[str, Any] = {}
        """Field -> the target's value, where it differs from the default."""


def _unfit(name: str, value: Any) -> str:
    """Why a profile cannot hold ``value`` for ``name`` (empty: it can)."""
    allowed = _ALLOWED.get(name)
    if allowed is not None and value not in allowed:
        shown = ", ".join(str(a) for a in allowed)
        return f"the target showed {value!r}; a profile holds one of {shown}"
    if name == "delete_result.fields" and isinstance(value, dict):
        odd = {k: v for k, v in value.items() if v not in _CARRIES}
        if odd:
            return f"result fields {sorted(odd)} carry none of {', '.join(_CARRIES)}"
    return ""


def _set(document: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    node = document
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value


def calibrated_document(
    target: ProbeResult, fake: ProbeResult, default: Mapping[str, Any]
) -> Calibration:
    """``default`` (a profile document) with every field the target answered otherwise
    than the default fake (``fake``) set to the target's answer."""
    document = copy.deepcopy(dict(default))
    not_observed: dict[str, str] = {}
    calibration = Calibration(document, not_observed)
    for name in FIELDS:
        finding = target.findings.get(name)
        if name in NOT_PROFILE_FIELDS:
            mine = fake.findings.get(name)
            if finding is not None and finding.observed:
                theirs = mine.value if mine is not None and mine.observed else None
                if theirs != finding.value:
                    not_observed[name] = (
                        f"the target answers {finding.value!r}, the fake {theirs!r}; no profile "
                        "field holds this (compare reports it)"
                    )
            continue
        if finding is None or not finding.observed:
            not_observed[name] = finding.reason if finding is not None else "not probed"
            continue
        mine = fake.findings.get(name)
        if mine is not None and mine.observed and mine.value == finding.value:
            continue  # as the default fake answers: the default stays (a null message too)
        why = _unfit(name, finding.value)
        if why:
            not_observed[name] = why
            continue
        kept, problem = _loadable(document, name, finding.value)
        if problem:
            not_observed[name] = problem
        if kept is not None:
            _set(document, name, kept)
            calibration.adopted[name] = kept
    not_observed.update(NEVER_PROBED)
    return calibration


def _loads(document: Mapping[str, Any]) -> str:
    """Why the profile loader refuses ``document`` (empty: it loads)."""
    from patgate.errors import UsageError
    from patgate.fake.profile import load_profile

    try:
        load_profile(document)
    except UsageError as error:
        return str(error)
    return ""


def _loadable(document: dict[str, Any], name: str, value: Any) -> tuple[Any, str]:
    """``(value to set, problem)``: ``value`` when the profile loads with it; for a list, the
    items the fake can serve (the others named in ``problem``); else ``(None, why)``."""
    trial = copy.deepcopy(document)
    _set(trial, name, value)
    problem = _loads(trial)
    if not problem:
        return value, ""
    if not isinstance(value, list):
        return None, f"the target showed {value!r}; the fake cannot take it ({problem})"
    kept: list[Any] = []
    dropped: list[Any] = []
    for item in value:
        _set(trial, name, [*kept, item])
        (dropped if _loads(trial) else kept).append(item)
    why = f"the target shows {dropped!r} too, which the fake cannot serve"
    return kept, why


def render_profile(calibration: Calibration, *, target: str, allow_writes: bool) -> str:
    """The profile as YAML: a header, the document, the not-observed fields as comments."""
    import yaml

    mode = "with --allow-writes" if allow_writes else "read-only"
    lines = [
        f"# Calibrated by `patgate calibrate` against {target} ({mode}).",
        "# Fields the target answered as the fake's default keep the default's value.",
        "# Load it with patgate.Fake(profile=PATH), the patgate marker's profile=, the ini",
        "# option patgate_profile or `patgate serve --profile PATH`.",
    ]
    body = yaml.safe_dump(
        calibration.document, sort_keys=False, allow_unicode=True, default_flow_style=False
    )
    tail = ["", "# Not observed (each keeps the default's value):"]
    tail += [
        f"#   {name}: {' '.join(reason.split())}"
        for name, reason in calibration.not_observed.items()
    ]
    return "\n".join(lines) + "\n" + body + "\n".join(tail) + "\n"
