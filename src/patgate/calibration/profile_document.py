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

from patgate.calibration.fields import SHAPE_PREFIX
from patgate.calibration.probes import FIELDS, NOT_PROFILE_FIELDS, Finding, ProbeResult

__all__ = ["NEVER_PROBED", "Calibration", "calibrated_document", "render_profile"]

NEVER_PROBED: Mapping[str, str] = {
    **{
        f"refusals.{kind}.message": "a refusal's wording is recorded per operation "
        "(refusal_messages.<operation>.<kind>), never per kind: one operation's wording must not "
        "stand for another's"
        for kind in ("unauthenticated", "forbidden", "not_found", "token_limit", "invalid_input")
    },
    "refusals.rate_limited.status": "a probe never goes over the rate limit",
    "refusals.rate_limited.code": "a probe never goes over the rate limit",
    "refusals.rate_limited.message": "a probe never goes over the rate limit",
}
"""Profile fields no probe looks at, and why."""

_PRECISIONS = ("milliseconds", "seconds", "microseconds")
_OFFSETS = ("Z", "+00:00")
_ALLOWED: Mapping[str, tuple[Any, ...]] = {
    "delete_result.shape": ("boolean", "object"),
    "listing_order": ("created_ascending", "created_descending", "name_ascending"),
    "date_precision.lastUsedDate": _PRECISIONS,
    "hubs.date_precision": _PRECISIONS,
    "date_offset.lastUsedDate": _OFFSETS,
    "date_offset.hubs": _OFFSETS,
    "hubs.order": ("created_ascending", "created_descending", "name_ascending", "name_descending"),
    "pages.over_maximum": ("refused", "cut"),
    "rate_limit.announce": ("none", "ratelimit_headers"),
    "pat_creation.client_credentials": ("allowed", "refused"),
    "graphql.refusal_status": ("ok", "refusal"),
    "content_errors.format": ("json", "problem+json"),
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
    if dotted.startswith(SHAPE_PREFIX):  # an answer's name may hold dots of its own
        document.setdefault("shapes", {})[dotted[len(SHAPE_PREFIX) :]] = value
        return
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
        value = finding.value
        if name.startswith(SHAPE_PREFIX):
            value = with_samples(value, mine.value if mine and mine.observed else None, finding)
        if name == "shapes.hubs_page":
            value = _every_page_link(value, target.findings.get("pages.links"))
        kept, problem = _loadable(document, name, value)
        if problem:
            not_observed[name] = problem
        if kept is not _UNFIT:
            _set(document, name, kept)
            calibration.adopted[name] = kept
    not_observed.update(NEVER_PROBED)
    if "hubs.fields" in not_observed and "shapes.hub" in calibration.adopted:
        not_observed["hubs.fields"] = (
            "it names only fields the fake knows; the target's others are served through the "
            "hub's shape (shapes.hub), with samples"
        )
    _shared_wording(calibration, target)
    return calibration


def _shared_wording(calibration: Calibration, target: ProbeResult) -> None:
    """A kind's wording that every operation seen refusing it shares, and that calibrate
    adopted, is also the kind's own (``refusals.<kind>.message``): it then reaches what
    no operation names (a refusal before the operation is known, such as a missing token).
    A kind worded differently by two operations keeps only the per-operation wording. The
    token endpoint's OAuth ``error_description`` is its own: a kind's wording never
    reaches it, so it is left out."""

    def counted(name: str) -> bool:
        return name.startswith("refusal_messages.") and not name.startswith(_TOKEN_WORDING)

    words: dict[str, set[str]] = {}
    for name, finding in target.findings.items():
        if counted(name) and finding.observed:
            words.setdefault(name.rsplit(".", 1)[1], set()).add(str(finding.value))
    for kind, seen in words.items():
        adopted = {
            str(v) for n, v in calibration.adopted.items() if counted(n) and n.endswith(kind)
        }
        field = f"refusals.{kind}.message"
        if len(seen) == 1 and seen == adopted and field in calibration.not_observed:
            wording = next(iter(seen))
            _set(calibration.document, field, wording)
            calibration.adopted[field] = wording
            del calibration.not_observed[field]


_TOKEN_WORDING = "refusal_messages.token."


def _every_page_link(shape: Any, links: Finding | None) -> Any:
    """A hubs page's shape with every relation ``pages.links`` saw (the shape was taken from
    the first page, where ``prev`` and ``next`` may not apply): a relation the shape lacks
    would be left out of every page the fake serves."""
    keys = shape.get("body", {}).get("keys", {}).get("_links", {}).get("keys")
    if not (links is not None and links.observed and isinstance(keys, dict) and keys):
        return shape
    like = next(iter(keys.values()))
    for relation in links.value:
        keys.setdefault(relation, copy.deepcopy(like))
    return shape


def with_samples(shape: Any, served: Any, finding: Finding) -> Any:
    """``shape`` (the target's) with a ``sample`` on each key the fake's shape (``served``)
    lacks: the target's value there, redacted when it was recorded, so that the fake can
    serve a key it does not know."""
    shape = copy.deepcopy(shape)
    if isinstance(shape, dict) and isinstance(shape.get("body"), dict):
        mine = served.get("body") if isinstance(served, dict) else None
        _sample_keys(shape["body"], mine, finding.sampled)
    return shape


def _sample_keys(node: dict[str, Any], served: Any, value: Any) -> None:
    """Walk an object node beside the fake's node and the target's value."""
    keys = node.get("keys")
    if isinstance(keys, dict) and isinstance(value, dict):
        known = served.get("keys") if isinstance(served, dict) else None
        for key, child in keys.items():
            if not isinstance(child, dict) or key not in value:
                continue
            if not isinstance(known, dict) or key not in known:
                child["sample"] = value[key]
            else:
                _sample_keys(child, known[key], value[key])
    items = node.get("items")
    if isinstance(items, dict) and isinstance(value, list) and value:
        mine = served.get("items") if isinstance(served, dict) else None
        _sample_keys(items, mine, value[0])


def _loads(document: Mapping[str, Any]) -> str:
    """Why the profile loader refuses ``document`` (empty: it loads)."""
    from patgate.errors import UsageError
    from patgate.fake.profile import load_profile

    try:
        load_profile(document)
    except UsageError as error:
        return str(error)
    return ""


_UNFIT = object()
"""What :func:`_loadable` gives for a value no profile can hold (``None`` is a value: an
absent ``token_type``)."""


def _loadable(document: dict[str, Any], name: str, value: Any) -> tuple[Any, str]:
    """``(value to set, problem)``: ``value`` when the profile loads with it; for a list, the
    items the fake can serve (the others named in ``problem``); else ``(_UNFIT, why)``."""
    trial = copy.deepcopy(document)
    _set(trial, name, value)
    problem = _loads(trial)
    if not problem:
        return value, ""
    if not isinstance(value, list):
        return _UNFIT, f"the target showed {value!r}; the fake cannot take it ({problem})"
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
