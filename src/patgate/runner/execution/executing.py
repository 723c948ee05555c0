"""What a step kind's or a control action's executor sees of the scenario that runs it.

:class:`~patgate.runner.execution.scenario_execution.ScenarioExecution` runs a scenario and
calls the executors (:mod:`patgate.runner.execution.step_senders`,
:mod:`patgate.runner.execution.control_performer`); they name this protocol, not the
execution, so the arrows run one way: execution -> step senders -> control performer -> here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from patgate.runner.context import RunContext

__all__ = ["Executing"]


class Executing(Protocol):
    """The running scenario, as an executor uses it."""

    context: RunContext
    """The run's shared parts: the target, the exchange, the custodian, the options."""
    names: list[str]
    """Names of the tokens this scenario set out to create (its share of the ledger)."""
