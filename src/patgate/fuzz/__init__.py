"""Property-based fuzzing of a deployment with schemathesis (the optional ``fuzz`` extra).

``fuzz_fake(options)`` fuzzes an in-process fake, ``fuzz_target(config, options)`` a live
deployment; both return a :class:`FuzzReport`. Schemathesis and Hypothesis load only when
one of them is first used, so importing this package costs nothing and works without the
extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from patgate.fuzz.report import FuzzFailure, FuzzReport, OperationTally

if TYPE_CHECKING:
    from patgate.fuzz.engine import FuzzOptions, fuzz_fake, fuzz_target

__all__ = [
    "FuzzFailure",
    "FuzzOptions",
    "FuzzReport",
    "OperationTally",
    "fuzz_fake",
    "fuzz_target",
]

_LAZY = frozenset({"FuzzOptions", "fuzz_fake", "fuzz_target"})


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from patgate.fuzz import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
