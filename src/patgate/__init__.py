"""patgate: a conformance kit and an in-process fake for token authorization and PATs.

``patgate.Fake`` intercepts httpx and requests calls to the real hosts and answers them from
a stateful fake; ``patgate run`` checks any deployment against the documented rules.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from patgate.control_client import ControlClient, ControlError
from patgate.errors import (
    CheckFailure,
    DomainError,
    PatgateError,
    ScenarioError,
    TargetUnreachable,
    UnmatchedRequest,
    UsageError,
)
from patgate.harness import WORLD_KEYS, Fake
from patgate.redaction import Redactor, Secret
from patgate.wire import FakeUrls, WireRequest, WireResponse

try:
    __version__ = version("patgate")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0.0.0"

__all__ = [
    "WORLD_KEYS",
    "CheckFailure",
    "ControlClient",
    "ControlError",
    "DomainError",
    "Fake",
    "FakeUrls",
    "PatgateError",
    "Redactor",
    "ScenarioError",
    "Secret",
    "TargetUnreachable",
    "UnmatchedRequest",
    "UsageError",
    "WireRequest",
    "WireResponse",
    "__version__",
]
