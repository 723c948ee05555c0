"""The probe order as data: each probe declares what it needs first and what it must not
overlap with, and the scheduler runs every probe as soon as it may.

A probe's ``after`` names probes that must have ended, or points a probe declares it passes
(``"token lifecycle:made"``), before it starts; ``excludes`` names probes that must not run
while it does. A name whose probe is not chosen (a write probe on a read-only run) counts as
reached. Probes run side by side on the session's pooled connections.

The order, and why:

- the token limit fills the admin's tokens to the cap: only once the lifecycle's tokens
  exist, the name probe (which needs a free place) is done, and the admin's listing was read
  (a listing taken at the cap would be judged wrongly);
- the name probe starts once the lifecycle counted the admin's tokens (with a fourth free
  place it goes at once; else it waits, inside, for the lifecycle's tokens and the place left);
- the lifecycle's deletes come once its uses and the token limit are done (the tokens count
  toward the cap) and the shape probe told the delete result's shape;
- the unknown-id delete, once the shape probe told the shape;
- the client-credential create, once the client token probe got a token and the token
  limit's fillers are gone (it needs a free place: if the lifecycle's tokens leave none, it
  waits, inside, for their deletes).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from patgate.calibration.content_probes import probe_client_token, probe_hubs
from patgate.calibration.fields import FIELDS, FIELDS_OF, WRITE_FIELDS, WRITE_PROBES
from patgate.calibration.probing import NEEDS_WRITES, PROBE_CONNECTIONS, ProbeResult, Probing
from patgate.calibration.read_probes import (
    probe_delete_shape,
    probe_listing,
    probe_unauthenticated,
)
from patgate.calibration.write_probes import (
    COUNTED,
    MADE,
    probe_client_credentials,
    probe_forbidden,
    probe_lifecycle,
    probe_lifecycle_deletes,
    probe_name_length,
    probe_not_found,
    probe_token_limit,
)
from patgate.errors import PatgateError, RequestFailed, UnexpectedAnswer

if TYPE_CHECKING:
    from patgate.runner.engine import ScenarioRunner

__all__ = ["PROBES", "Probe", "ScheduleError", "check_schedule", "probe_target", "run_schedule"]


@dataclass(frozen=True)
class Probe:
    """One probe: its name, what it does, the fields it may observe, and its place."""

    name: str
    run: Callable[[Probing], None]
    after: tuple[str, ...] = ()
    """Probes that must have ended, or points (``"<probe>:<point>"``) passed, before it."""
    excludes: tuple[str, ...] = ()
    """Probes that must not run while it does."""
    points: tuple[str, ...] = ()
    """The points it passes (``"<its name>:<point>"``), which others may wait for."""

    @property
    def writes(self) -> bool:
        """Whether it creates or deletes tokens (it runs only with ``--allow-writes``)."""
        return self.name in WRITE_PROBES

    @property
    def fields(self) -> tuple[str, ...]:
        """The fields it may observe."""
        return FIELDS_OF.get(self.name, ())


PROBES: tuple[Probe, ...] = (
    Probe("token lifecycle", probe_lifecycle, points=(COUNTED, MADE)),
    Probe("name length", probe_name_length, after=(COUNTED,), excludes=("token limit",)),
    Probe("token listing", probe_listing),
    Probe("token limit", probe_token_limit, after=(MADE, "name length", "token listing")),
    Probe("delete result shape", probe_delete_shape),
    Probe(
        "lifecycle deletes",
        probe_lifecycle_deletes,
        after=("token lifecycle", "token limit", "delete result shape"),
    ),
    Probe("client token", probe_client_token),
    Probe(
        "client-credential create",
        probe_client_credentials,
        after=("client token", "token limit"),
    ),
    Probe("hubs listing", probe_hubs),
    Probe("unknown id", probe_not_found, after=("delete result shape",)),
    Probe("non-admin create", probe_forbidden),
    Probe("unauthenticated refusal", probe_unauthenticated),
)
"""Every probe, in the order they are started when several may start and a connection is
free: the lifecycle's chain first (it is the longest), then what it waits for."""


class ScheduleError(PatgateError, ValueError):
    """A schedule that names an unknown probe or point, or waits in a circle."""


def check_schedule(probes: Sequence[Probe]) -> None:
    """Raise :class:`ScheduleError` unless every name ``after`` and ``excludes`` use is a
    probe or a declared point, and no probe waits, step by step, for itself."""
    names = {probe.name for probe in probes}
    points = {point: probe.name for probe in probes for point in probe.points}
    for probe in probes:
        unknown = [n for n in (*probe.after, *probe.excludes) if n not in names | set(points)]
        if unknown:
            raise ScheduleError(f"probe {probe.name!r} names {unknown}: no such probe or point")
    needs = {p.name: {points.get(n, n) for n in p.after} for p in probes}
    for start in needs:
        seen, todo = set(), list(needs[start])
        while todo:
            name = todo.pop()
            if name == start:
                raise ScheduleError(f"probe {start!r} waits, step by step, for itself")
            if name not in seen:
                seen.add(name)
                todo += needs.get(name, ())


def run_schedule(
    probing: Probing,
    probes: Sequence[Probe],
    *,
    chosen: Collection[str] | None = None,
    workers: int = PROBE_CONNECTIONS,
) -> None:
    """Run the ``chosen`` of ``probes`` (default: all), each as soon as what it is
    ``after`` is reached and nothing it must not overlap with runs. A probe stopped by a
    failed request misses its fields with the reason; any other error is raised once every
    probe ended."""
    check_schedule(probes)
    run = [p for p in probes if chosen is None or p.name in chosen]
    milestones = probing.milestones
    milestones.expect([p.name for p in run] + [point for p in run for point in p.points])
    # Not overlapping goes both ways: a probe waits while one that excludes it runs.
    apart: dict[str, set[str]] = {p.name: set(p.excludes) for p in probes}
    for probe in probes:
        for other in probe.excludes:
            apart[other].add(probe.name)
    pending, running = list(run), set[str]()
    futures: list[Future[None]] = []

    def one(probe: Probe) -> None:
        try:
            probe.run(probing)
        except (RequestFailed, UnexpectedAnswer) as error:
            probing.missed(probe.fields, f"the {probe.name} probe stopped: {error}")
        finally:
            with milestones.condition:
                running.discard(probe.name)
            # Whichever way it ended, nobody waits on it any longer.
            milestones.reach(probe.name, *probe.points)

    # As many at once as the session pools connections, started in the schedule's order
    # (a probe waiting inside on another holds its thread: the lifecycle, which the name
    # probe waits on, is started first, and the lifecycle's deletes, which the
    # client-credential create may wait on, need one thread of the others).
    pool = ThreadPoolExecutor(workers, thread_name_prefix="patgate-probe")
    with pool, milestones.condition:
        while pending:
            started = False
            for probe in list(pending):
                needs = all(milestones.reached(name) for name in probe.after)
                free = len(running) < workers
                if free and needs and not running & apart[probe.name]:
                    pending.remove(probe)
                    running.add(probe.name)
                    futures.append(pool.submit(one, probe))
                    started = True
            if pending and not started:
                milestones.condition.wait()
    for future in futures:
        future.result()


def probe_target(
    session: ScenarioRunner,
    *,
    allow_writes: bool,
    sleep: Callable[[float], None] = time.sleep,
    max_wait: float = 0.0,
) -> ProbeResult:
    """Run every probe ``allow_writes`` permits against the session's target.

    The caller closes the session (its close deletes whatever a probe left). Raises
    :class:`~patgate.errors.TargetUnreachable` when the target does not answer at all.
    """
    probing = Probing(session, allow_writes=allow_writes, sleep=sleep, max_wait=max_wait)
    run_schedule(probing, PROBES, chosen={p.name for p in PROBES if allow_writes or not p.writes})
    if not allow_writes:
        probing.missed(WRITE_FIELDS, NEEDS_WRITES)
    else:
        _derive_refusal_status(probing)
    probing.missed(FIELDS, "not probed")
    return probing.result


_GRAPHQL_KINDS = ("token_limit", "invalid_input", "not_found", "forbidden")


def _derive_refusal_status(probing: Probing) -> None:
    """``graphql.refusal_status`` from the statuses of the refusals inside executed GraphQL
    requests: ``ok`` when each was 200, ``refusal`` when none was (then the token limit's
    status, seen nowhere else, is ``refusals.token_limit.status``)."""
    findings = probing.result.findings
    seen = {
        kind: findings[f"graphql_refusal_status.{kind}"]
        for kind in _GRAPHQL_KINDS
        if f"graphql_refusal_status.{kind}" in findings
        and findings[f"graphql_refusal_status.{kind}"].observed
    }
    name = "graphql.refusal_status"
    if not seen:
        probing.missed((name, "refusals.token_limit.status"), "no GraphQL refusal was seen")
        return
    request = "; ".join(sorted({f.request for f in seen.values()}))
    statuses = {kind: f.value for kind, f in seen.items()}
    if all(status == 200 for status in statuses.values()):
        probing.found(name, "ok", request)
        probing.missed(
            ("refusals.token_limit.status",),
            "the cap's refusal is answered inside an HTTP 200 (graphql.refusal_status: ok)",
        )
    elif all(status != 200 for status in statuses.values()):
        probing.found(name, "refusal", request)
        if "token_limit" in seen:
            probing.found("refusals.token_limit.status", statuses["token_limit"], request)
    else:
        probing.found(name, f"mixed: {statuses}", request)
