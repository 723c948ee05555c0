"""patgate: a conformance kit and an in-process fake for token authorization and PATs.

``patgate.Fake`` intercepts httpx and requests calls to the real hosts and answers them from
a stateful fake; ``patgate run`` checks any deployment against the documented rules.

Every type a public signature names is importable from here (``from patgate import
PatStatus``); the fake's types are imported on first use, so ``import patgate`` stays cheap.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

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
from patgate.wire import FakeUrls, LoggedRequest, RequestLog, WireRequest, WireResponse
from patgate.wire.messages import WireHandler

if TYPE_CHECKING:
    from patgate.fake.client_tokens import IssuedClientToken
    from patgate.fake.clock import Clock, SystemClock
    from patgate.fake.content import ContentRecord
    from patgate.fake.deployment import Deployment
    from patgate.fake.faults import CallSite, FaultAction, FaultRule, Faults
    from patgate.fake.model import (
        ApiClient,
        CreatedToken,
        Hub,
        HubPage,
        Organization,
        PatRecord,
        PatStatus,
        Principal,
        Role,
        User,
    )
    from patgate.fake.world import DefaultWorld
    from patgate.wire.control_service import ControlService
    from patgate.wire.request_log import RequestPage
    from patgate.wire.user_content import ContentPaths

try:
    __version__ = version("patgate")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0.0.0"

_LAZY = {
    "ApiClient": "patgate.fake.model",
    "CallSite": "patgate.fake.faults",
    "Clock": "patgate.fake.clock",
    "ContentPaths": "patgate.wire.user_content",
    "ContentRecord": "patgate.fake.content",
    "ControlService": "patgate.wire.control_service",
    "CreatedToken": "patgate.fake.model",
    "DefaultWorld": "patgate.fake.world",
    "Deployment": "patgate.fake.deployment",
    "FaultAction": "patgate.fake.faults",
    "FaultRule": "patgate.fake.faults",
    "Faults": "patgate.fake.faults",
    "Hub": "patgate.fake.model",
    "HubPage": "patgate.fake.model",
    "IssuedClientToken": "patgate.fake.client_tokens",
    "Organization": "patgate.fake.model",
    "PatRecord": "patgate.fake.model",
    "PatStatus": "patgate.fake.model",
    "Principal": "patgate.fake.model",
    "RequestPage": "patgate.wire.request_log",
    "SystemClock": "patgate.fake.clock",
    "Role": "patgate.fake.model",
    "User": "patgate.fake.model",
}
"""The fake's types, by the module that defines them: imported when first asked for."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "WORLD_KEYS",
    "ApiClient",
    "CallSite",
    "CheckFailure",
    "Clock",
    "ContentPaths",
    "ContentRecord",
    "ControlClient",
    "ControlError",
    "ControlService",
    "CreatedToken",
    "DefaultWorld",
    "Deployment",
    "DomainError",
    "Fake",
    "FakeUrls",
    "FaultAction",
    "FaultRule",
    "Faults",
    "Hub",
    "HubPage",
    "IssuedClientToken",
    "LoggedRequest",
    "Organization",
    "PatRecord",
    "PatStatus",
    "PatgateError",
    "Principal",
    "Redactor",
    "RequestLog",
    "RequestPage",
    "Role",
    "ScenarioError",
    "Secret",
    "SystemClock",
    "TargetUnreachable",
    "UnmatchedRequest",
    "UsageError",
    "User",
    "WireHandler",
    "WireRequest",
    "WireResponse",
    "__version__",
]
