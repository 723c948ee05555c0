"""The conformance runner: scenarios in, events out.

``run(scenarios, target, options)`` yields the events of :mod:`patgate.runner.results.events`;
targets are :class:`FakeTarget` (the embedded fake, with control) and :class:`LiveTarget`.
Heavy modules (httpx, the fake) load only when a run starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from patgate.runner.connection.config import LiveTarget, TargetConfig, resolve_target_config
    from patgate.runner.connection.fake import FakeTarget
    from patgate.runner.context import RunOptions
    from patgate.runner.engine import ScenarioRunner, run

__all__ = [
    "FakeTarget",
    "LiveTarget",
    "RunOptions",
    "ScenarioRunner",
    "TargetConfig",
    "resolve_target_config",
    "run",
]

_HOMES = {
    "FakeTarget": "patgate.runner.connection.fake",
    "LiveTarget": "patgate.runner.connection.config",
    "RunOptions": "patgate.runner.context",
    "ScenarioRunner": "patgate.runner.engine",
    "TargetConfig": "patgate.runner.connection.config",
    "resolve_target_config": "patgate.runner.connection.config",
    "run": "patgate.runner.engine",
}


def __getattr__(name: str) -> Any:
    # Lazy: ``import patgate.runner.results.events`` (what reporters need) stays cheap.
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'patgate.runner' has no attribute {name!r}")
