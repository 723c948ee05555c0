"""patgate: a conformance kit and an in-process fake for token authorization and PATs."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from patgate.errors import (
    CheckFailure,
    DomainError,
    PatgateError,
    ScenarioError,
    TargetUnreachable,
    UsageError,
)

try:
    __version__ = version("patgate")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0.0.0"

__all__ = [
    "CheckFailure",
    "DomainError",
    "PatgateError",
    "ScenarioError",
    "TargetUnreachable",
    "UsageError",
    "__version__",
]
