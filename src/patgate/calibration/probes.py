"""The probes: requests that show what a target chose where the documentation is silent.

Each probe sends a few requests through a runner session (:class:`Probing`) and records,
per field (a dotted path such as ``delete_result.shape``, or a shape such as
``shapes.hub``), either what the target showed or why it could not be seen. A probe that
meets a broken documented rule records a :class:`RuleBreak` instead: that is a gate failure
for ``patgate run``, never a value to adopt.

The package's parts: the field catalogue (:mod:`~patgate.calibration.fields`), the
recorder and senders (:mod:`~patgate.calibration.probing`), the answers' readers
(:mod:`~patgate.calibration.answer_reading`), the probes (REST:
:mod:`~patgate.calibration.content_probes`; GraphQL read-only:
:mod:`~patgate.calibration.read_probes`; writes: :mod:`~patgate.calibration.write_probes`)
and the scheduler that runs them in the order their declarations give
(:mod:`~patgate.calibration.scheduler`). This module names what the rest of patgate uses.

Read-only probes (always run): the token endpoint's answer and refusals, the hubs listing
(pages, hubs, their order, dates, shapes and refusals), the unauthenticated refusal, the
admin's own listing, the delete result's shape through introspection (and the announced
rate limit). Write probes (``allow_writes``): a create and delete of the probe's own tokens
(the listing order, ``lastUsedDate``, the delete result's fields), the refusals of a sixth
token, of a too-long name, of a non-admin's create and of an unknown id, and a create with
a client-credential token.
"""

from __future__ import annotations

from patgate.calibration.fields import FIELDS, NOT_PROFILE_FIELDS
from patgate.calibration.probing import (
    NEEDS_WRITES,
    PROBE_CONNECTIONS,
    Finding,
    ProbeResult,
    Probing,
    RuleBreak,
)
from patgate.calibration.scheduler import PROBES, Probe, probe_target

__all__ = [
    "FIELDS",
    "NEEDS_WRITES",
    "NOT_PROFILE_FIELDS",
    "PROBES",
    "PROBE_CONNECTIONS",
    "Finding",
    "Probe",
    "ProbeResult",
    "Probing",
    "RuleBreak",
    "probe_target",
]
