"""What a step of a run produces, as the runner's modules name it.

See :mod:`patgate.basics.observed`.

The values live below both the checks and the runner (the checks read an ``Observed`` answer
and the runner calls the checks), so neither imports the other's layer to share them.
"""

from __future__ import annotations

from patgate.basics.observed import (
    MAX_INT_DIGITS,
    NOT_JSON,
    ControlResult,
    Observed,
    Sent,
    StepResult,
    WaitResult,
)

__all__ = [
    "MAX_INT_DIGITS",
    "NOT_JSON",
    "ControlResult",
    "Observed",
    "Sent",
    "StepResult",
    "WaitResult",
]
