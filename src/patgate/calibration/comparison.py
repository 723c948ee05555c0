"""The same probes against a target and against the embedded fake, and where they differ.

:func:`probe_both` runs the probes on the target (through a runner session, so its ledger
and cleanup are those of ``patgate run``), then on an embedded fake of the given profile
that holds only the keys the target has (a probe the target cannot run is not run on the
fake either). :func:`compare_results` lists each field the two answered differently
(:class:`Drift`), each field they answered alike, and each field neither showed. A shape is
compared node by node (``shapes.hub.body.keys.plan``). A difference in a value that changes
on every call (a shape's sample, ``expires_in`` within a few seconds) is noise, listed apart
and never drift; one the profile's ``accepted`` entries name is accepted until the entry
expires (:mod:`patgate.calibration.drift_rules`). What the target did against a documented
rule is a :class:`~patgate.calibration.probes.RuleBreak`: a gate failure for
``patgate run``, never drift.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from patgate.calibration.drift_rules import Acceptance, differences
from patgate.calibration.probes import (
    FIELDS,
    PROBE_CONNECTIONS,
    Finding,
    ProbeResult,
    RuleBreak,
    probe_target,
)
from patgate.scenario.catalogue import Catalogue

if TYPE_CHECKING:
    from patgate.fake.profile import Profile
    from patgate.guards.redaction import Redactor
    from patgate.runner.connection.config import TargetConfig
    from patgate.runner.context import RunOptions
    from patgate.runner.results.events import Tallies

__all__ = [
    "Comparison",
    "Drift",
    "Same",
    "compare_results",
    "probe_both",
    "probe_fake",
    "probe_live",
]

RUN_HINT = "a documented rule, not a choice: check it with `patgate run`"
"""What compare and calibrate say beside a gate failure."""

_CREDENTIAL_KEYS = (
    "client_id",
    "client_secret",
    "admin_token",
    "member_token",
    "removed_token",
    "unpermitted_token",
    "organization_id",
)
"""Keys the fake's world always has: the fake is probed with only those the target has."""


NO_RULES = Catalogue(rules=())
"""The catalogue of a probing session: probes run no scenario, so none is loaded."""
_FAKE_ORIGIN = "https://compared-fake.patgate.invalid"
"""Where the fake compare probes answers (reached through its transport, never a network)."""


@dataclass(frozen=True)
class Drift:
    """One field the target answered otherwise than the fake."""

    field: str
    fake: Any
    target: Any
    request: str

    def as_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "fake": self.fake,
            "target": self.target,
            "request": self.request,
        }


@dataclass(frozen=True)
class Same:
    """One field both answered (alike, or neither showed it: ``value`` is ``None`` and
    ``reason`` says why)."""

    field: str
    value: Any
    request: str
    reason: str = ""

    def as_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"field": self.field, "request": self.request}
        if self.reason:
            entry["not_observed"] = self.reason
        else:
            entry["value"] = self.value
        return entry


@dataclass(frozen=True)
class Noise:
    """A difference in a value that changes on every call: never drift."""

    field: str
    fake: Any
    target: Any
    why: str

    def as_json(self) -> dict[str, Any]:
        return {"field": self.field, "fake": self.fake, "target": self.target, "why": self.why}


@dataclass(frozen=True)
class Accepted:
    """A difference the profile accepts (its ``accepted`` entry, not yet expired)."""

    drift: Drift
    reason: str
    expires: str

    def as_json(self) -> dict[str, Any]:
        return {**self.drift.as_json(), "reason": self.reason, "expires": self.expires}


@dataclass
class Comparison:
    """Where a target and the fake differ, and what was checked."""

    drift: list[Drift] = field(default_factory=list)
    checked: list[Same] = field(default_factory=list)
    noise: list[Noise] = field(default_factory=list)
    accepted: list[Accepted] = field(default_factory=list)
    gate_failures: list[RuleBreak] = field(default_factory=list)
    unreachable: str = ""
    counts: Mapping[str, int] = field(default_factory=dict)
    """The target's ledger tallies (tokens created, deleted, leaked)."""
    target: str = ""
    profile: str = "default"
    allow_writes: bool = False

    @property
    def exit_code(self) -> int:
        """0 no drift, 1 drift or a gate failure, 3 the target did not answer."""
        if self.unreachable:
            return 3
        leaked = self.counts.get("tokens_leaked", 0) or self.counts.get("deletes_refused", 0)
        return 1 if self.drift or self.gate_failures or leaked else 0

    def as_json(self) -> dict[str, Any]:
        """The JSON report: ``drift`` and ``checked`` lists, gate failures, the verdict."""
        return {
            "target": self.target,
            "profile": self.profile,
            "allow_writes": self.allow_writes,
            "exit_code": self.exit_code,
            "unreachable": self.unreachable or None,
            "counts": dict(self.counts),
            "drift": [d.as_json() for d in self.drift],
            "accepted": [a.as_json() for a in self.accepted],
            "noise": [n.as_json() for n in self.noise],
            "checked": [c.as_json() for c in self.checked],
            "gate_failures": [
                {"rule": b.rule, "what": b.what, "request": b.request, "hint": RUN_HINT}
                for b in self.gate_failures
            ],
        }


def _answer(finding: Finding | None) -> Any:
    if finding is None:
        return "not observed: not probed"
    return finding.value if finding.observed else f"not observed: {finding.reason}"


def compare_results(
    target: ProbeResult,
    fake: ProbeResult,
    acceptance: Acceptance | None = None,
    profile: Mapping[str, Any] | None = None,
) -> Comparison:
    """Field by field: a drift where the answers differ (one side observing and the other
    not is a difference too), a check where they agree; noise and accepted differences
    apart (``acceptance``: the profile's ``accepted`` entries). Where the fake's probe cannot
    see a field its ``profile`` document sets (the fake's hubs share one creation date, so
    their order by date cannot be seen), the profile's value stands for the fake's answer:
    the fake serves what its profile says."""
    comparison = Comparison(gate_failures=list(target.breaks))
    for name in FIELDS:
        mine, theirs = fake.findings.get(name), target.findings.get(name)
        unseen_by_fake = mine is None or not mine.observed
        if profile is not None and unseen_by_fake and theirs is not None and theirs.observed:
            mine = _from_profile(profile, name) or mine
        seen_mine = mine is not None and mine.observed
        seen_theirs = theirs is not None and theirs.observed
        request = (theirs.request if theirs and theirs.request else "") or (
            mine.request if mine else ""
        )
        if not seen_mine and not seen_theirs:
            reason = (theirs.reason if theirs else "") or "not probed"
            comparison.checked.append(Same(name, None, request, reason))
        elif mine is not None and theirs is not None and seen_mine and seen_theirs:
            _compare_values(comparison, name, mine.value, theirs.value, request)
        else:
            comparison.drift.append(Drift(name, _answer(mine), _answer(theirs), request))
    if acceptance is not None:
        _accept(comparison, acceptance)
    return comparison


def _from_profile(profile: Mapping[str, Any], name: str) -> Finding | None:
    """``name`` (``hubs.order``, ``shapes.refusal.content.not_found``) as the profile document
    sets it, or ``None``. A name's parts may themselves hold dots: the longest key that
    exists wins at each level."""
    value: Any = profile
    parts = name.split(".")
    while parts:
        if not isinstance(value, Mapping):
            return None
        for end in range(len(parts), 0, -1):
            key = ".".join(parts[:end])
            if key in value:
                value, parts = value[key], parts[end:]
                break
        else:
            return None
    return None if value is None else Finding(name, value, "the profile")


def _compare_values(
    comparison: Comparison, name: str, mine: Any, theirs: Any, request: str
) -> None:
    """Both sides observed ``name``: alike, or each difference as drift or noise."""
    found = differences(name, mine, theirs)
    if not found:
        comparison.checked.append(Same(name, theirs, request))
        return
    for where, fake_value, target_value, noise in found:
        if noise:
            comparison.noise.append(Noise(where, fake_value, target_value, noise))
        else:
            comparison.drift.append(Drift(where, fake_value, target_value, request))
    if all(noise for *_, noise in found):
        comparison.checked.append(Same(name, theirs, request))


def _accept(comparison: Comparison, acceptance: Acceptance) -> None:
    """Move each drift an unexpired ``accepted`` entry names into ``accepted``."""
    kept: list[Drift] = []
    for drift in comparison.drift:
        entry = acceptance.covering(drift.field)
        if entry is None:
            kept.append(drift)
        else:
            comparison.accepted.append(Accepted(drift, entry.reason, entry.expires))
    comparison.drift = kept


def probe_live(
    config: TargetConfig,
    options: RunOptions,
    redactor: Redactor,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[ProbeResult, Tallies]:
    """Probe a live target in a runner session; ``(result, tallies)``, the tallies of its
    ledger once the session's cleanup ran (what was created, deleted, left behind)."""
    import dataclasses

    from patgate.runner.session import open_session

    # The probes run in two groups side by side: the client pools a connection for each.
    options = dataclasses.replace(options, concurrency=max(options.concurrency, PROBE_CONNECTIONS))
    session = open_session(config, options, catalogue=NO_RULES, redactor=redactor)
    try:
        result = probe_target(
            session, allow_writes=options.allow_writes, sleep=sleep, max_wait=options.max_wait
        )
    finally:
        tallies = session.finish()
        session.close()
    return result, tallies


def probe_fake(
    profile: Profile | str | Mapping[str, Any] | None,
    keys: frozenset[str],
    *,
    allow_writes: bool,
    max_wait: float = 0.0,
) -> ProbeResult:
    """Probe an embedded fake of ``profile`` holding only the credential ``keys`` given."""
    from patgate.harness import Fake
    from patgate.runner.connection.config import TargetConfig
    from patgate.runner.connection.fake import FakeTarget
    from patgate.runner.context import RunOptions
    from patgate.runner.session import open_session
    from patgate.wire.urls import FakeUrls

    # Not started, on URLs of its own: the session reaches it through its transport, and
    # nothing else of the process is intercepted (a test's own fake may be active).
    fake = Fake(profile=profile, urls=FakeUrls.same_origin(_FAKE_ORIGIN))
    target = FakeTarget(fake)
    world = {k: v for k, v in fake.world.items() if k not in _CREDENTIAL_KEYS or k in keys}
    target.config = TargetConfig(world)
    options = RunOptions(allow_writes=True, concurrency=PROBE_CONNECTIONS)
    with open_session(target, options, catalogue=NO_RULES) as session:
        return probe_target(session, allow_writes=allow_writes, max_wait=max_wait)


def held_keys(config: TargetConfig) -> frozenset[str]:
    """The credential keys a target has."""
    return frozenset(k for k in _CREDENTIAL_KEYS if config.get(k))


def probe_both(
    config: TargetConfig,
    options: RunOptions,
    redactor: Redactor,
    profile: Profile | str | Mapping[str, Any] | None,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[ProbeResult, ProbeResult, Tallies]:
    """The probes' results on the target, then on the fake (same keys, same writes), and
    the target's ledger tallies."""
    from concurrent.futures import ThreadPoolExecutor

    # The fake answers in this process while the target's answers travel: side by side.
    with ThreadPoolExecutor(1, thread_name_prefix="patgate-fake-probe") as pool:
        fake = pool.submit(
            probe_fake,
            profile,
            held_keys(config),
            allow_writes=options.allow_writes,
            max_wait=options.max_wait,
        )
        target, tallies = probe_live(config, options, redactor, sleep=sleep)
        return target, fake.result(), tallies
