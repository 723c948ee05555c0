"""patgate: a conformance kit and an in-process fake for token authorization and PATs.

``patgate.Fake`` intercepts httpx and requests calls to the real hosts and answers them from
a stateful fake; ``patgate run`` checks any deployment against the documented rules.

Every type a public signature names is importable from here (``from patgate import
PatStatus``). Each name is imported on first use (module ``__getattr__``), so ``import
patgate`` loads nothing but the version, and a module below this facade never imports it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from patgate._version import __version__
    from patgate.basics.reasons import Reason
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
    from patgate.fake.changes import Changes, Taken
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
    from patgate.fake.profile import (
        AcceptedDifference,
        DeleteResult,
        MaskedToken,
        Profile,
        RefusalShape,
        load_profile,
    )
    from patgate.fake.world import DefaultWorld
    from patgate.guards.redaction import Redactor, Secret
    from patgate.harness import WORLD_KEYS, Fake
    from patgate.wire.control_service import ControlService
    from patgate.wire.messages import WireHandler, WireRequest, WireResponse
    from patgate.wire.request_log import LoggedRequest, RequestLog, RequestPage
    from patgate.wire.urls import FakeUrls
    from patgate.wire.user_content import ContentPaths

_LAZY = {
    "AcceptedDifference": "patgate.fake.profile",
    "ApiClient": "patgate.fake.model",
    "CallSite": "patgate.fake.faults",
    "Changes": "patgate.fake.changes",
    "CheckFailure": "patgate.errors",
    "Clock": "patgate.fake.clock",
    "ContentPaths": "patgate.wire.user_content",
    "ContentRecord": "patgate.fake.content",
    "ControlClient": "patgate.control_client",
    "ControlError": "patgate.control_client",
    "ControlService": "patgate.wire.control_service",
    "CreatedToken": "patgate.fake.model",
    "DefaultWorld": "patgate.fake.world",
    "DeleteResult": "patgate.fake.profile",
    "Deployment": "patgate.fake.deployment",
    "DomainError": "patgate.errors",
    "Fake": "patgate.harness",
    "FakeUrls": "patgate.wire.urls",
    "FaultAction": "patgate.fake.faults",
    "FaultRule": "patgate.fake.faults",
    "Faults": "patgate.fake.faults",
    "Hub": "patgate.fake.model",
    "HubPage": "patgate.fake.model",
    "IssuedClientToken": "patgate.fake.client_tokens",
    "LoggedRequest": "patgate.wire.request_log",
    "MaskedToken": "patgate.fake.profile",
    "Organization": "patgate.fake.model",
    "PatRecord": "patgate.fake.model",
    "PatStatus": "patgate.fake.model",
    "PatgateError": "patgate.errors",
    "Principal": "patgate.fake.model",
    "Profile": "patgate.fake.profile",
    "Reason": "patgate.basics.reasons",
    "Redactor": "patgate.guards.redaction",
    "RefusalShape": "patgate.fake.profile",
    "RequestLog": "patgate.wire.request_log",
    "RequestPage": "patgate.wire.request_log",
    "Role": "patgate.fake.model",
    "ScenarioError": "patgate.errors",
    "Secret": "patgate.guards.redaction",
    "SystemClock": "patgate.fake.clock",
    "Taken": "patgate.fake.changes",
    "TargetUnreachable": "patgate.errors",
    "UnmatchedRequest": "patgate.errors",
    "UsageError": "patgate.errors",
    "User": "patgate.fake.model",
    "WORLD_KEYS": "patgate.harness",
    "WireHandler": "patgate.wire.messages",
    "WireRequest": "patgate.wire.messages",
    "WireResponse": "patgate.wire.messages",
    "__version__": "patgate._version",
    "load_profile": "patgate.fake.profile",
}
"""Every public name, by the module that defines it: imported when first asked for."""


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
    "AcceptedDifference",
    "ApiClient",
    "CallSite",
    "Changes",
    "CheckFailure",
    "Clock",
    "ContentPaths",
    "ContentRecord",
    "ControlClient",
    "ControlError",
    "ControlService",
    "CreatedToken",
    "DefaultWorld",
    "DeleteResult",
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
    "MaskedToken",
    "Organization",
    "PatRecord",
    "PatStatus",
    "PatgateError",
    "Principal",
    "Profile",
    "Reason",
    "Redactor",
    "RefusalShape",
    "RequestLog",
    "RequestPage",
    "Role",
    "ScenarioError",
    "Secret",
    "SystemClock",
    "Taken",
    "TargetUnreachable",
    "UnmatchedRequest",
    "UsageError",
    "User",
    "WireHandler",
    "WireRequest",
    "WireResponse",
    "__version__",
    "load_profile",
]
