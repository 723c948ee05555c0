"""The conformance runner: scenarios in, events out.

``run(scenarios, target, options)`` yields the events of :mod:`patgate.runner.results.events`;
targets are :class:`FakeTarget` (the embedded fake, with control) and :class:`LiveTarget`.
Heavy modules (httpx, the fake) load only when a run starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from patgate.runner.context import RunOptions
    from patgate.runner.engine import ScenarioRunner, run
    from patgate.runner.target.config import LiveTarget, TargetConfig, resolve_target_config
    from patgate.runner.target.fake import FakeTarget

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
    "FakeTarget": "patgate.runner.target.fake",
    "LiveTarget": "patgate.runner.target.config",
    "RunOptions": "patgate.runner.context",
    "ScenarioRunner": "patgate.runner.engine",
    "TargetConfig": "patgate.runner.target.config",
    "resolve_target_config": "patgate.runner.target.config",
    "run": "patgate.runner.engine",
}


def __getattr__(name: str) -> Any:
    # Lazy: ``import patgate.runner.results.events`` (what reporters need) stays cheap.
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'patgate.runner' has no attribute {name!r}")
