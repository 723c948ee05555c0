"""The executors of the control actions: the run's share of each, then the target acts.

Each is bound to its entry of :data:`~patgate.scenario.control_actions.CONTROL_ACTIONS` with
``@CONTROL_ACTIONS.executes`` and called as ``executor(execution, control, argument,
lookup)``. The executor resolves the argument, does what the run must around the action
(a token made through the management UI goes into the ledger; a rejected one is gone) and
asks the target's :class:`~patgate.runner.connection.config.Control` to act. An action with no
run share needs no executor here: every action left unbound gets the plain one (substitute
the argument, then ``control.perform``). A target offers control by returning a ``Control``
from its ``control`` attribute: the embedded fake's is
:class:`~patgate.runner.connection.fake.FakeControl`, a served fake's
:class:`~patgate.runner.connection.served_fake_control.HttpControl`; both do each action as
:mod:`patgate.runner.connection.control_plane` says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from patgate.runner.model import ControlResult, Observed
from patgate.scenario.control_actions import CONTROL_ACTIONS
from patgate.scenario.expressions import evaluate, substitute

if TYPE_CHECKING:
    from patgate.runner.connection.config import Control
    from patgate.runner.execution.executing import Executing

__all__ = ["ControlExecutor", "perform_control"]

Lookup = Callable[[str], Any]
ControlExecutor = Callable[["Executing", "Control", Any, Lookup], ControlResult]
"""``(execution, control, argument as written, lookup) -> result``."""


def perform_control(
    execution: Executing, action: str, argument: Any, lookup: Lookup
) -> ControlResult:
    """Run the executor of ``action`` on the target's control."""
    control = execution.context.target.control
    assert control is not None, "the engine skips control scenarios on other targets"
    executor: ControlExecutor = CONTROL_ACTIONS.executor(action)
    return executor(execution, control, argument, lookup)


def _plain(action: str) -> ControlExecutor:
    def execute(
        execution: Executing, control: Control, argument: Any, lookup: Lookup
    ) -> ControlResult:
        return control.perform(action, substitute(argument, lookup))

    return execute


@CONTROL_ACTIONS.executes("request_token")
def _request_token(
    execution: Executing, control: Control, argument: Any, lookup: Lookup
) -> ControlResult:
    # A token made through the management UI path is the run's too: in the ledger.
    argument = substitute(argument, lookup)
    name = argument["name"]
    if isinstance(name, str):
        execution.names.append(name)
    user = argument["user"]
    result: list[ControlResult] = []

    def act() -> Observed:
        result.append(control.perform("request_token", argument))
        return result[-1].as_answer()

    execution.context.custodian.create(
        name,
        act,
        bearer=control.bearer_of(user),
        bearer_key=f"{user}_token",
        token_id=_created_id,
        refused=lambda observed: observed.status != 200,
    )
    return result[-1]


@CONTROL_ACTIONS.executes("reject")
def _reject(execution: Executing, control: Control, argument: Any, lookup: Lookup) -> ControlResult:
    argument = substitute(argument, lookup)
    result = control.perform("reject", argument)
    if result.ok:
        execution.context.custodian.gone(str(argument))
    return result


@CONTROL_ACTIONS.executes("advance_clock")
def _advance_clock(
    execution: Executing, control: Control, argument: Any, lookup: Lookup
) -> ControlResult:
    return control.perform("advance_clock", evaluate(argument, lookup))


def _created_id(observed: Observed) -> str | None:
    body = observed.body
    token_id = body.get("id") if observed.status == 200 and isinstance(body, dict) else None
    return token_id if isinstance(token_id, str) else None


# Every action with no run share of its own (``remove_user``, ``set_role``, ``approve``, and
# any action added without an executor here) substitutes its argument and asks the control.
for _name in CONTROL_ACTIONS.unbound():
    CONTROL_ACTIONS.executes(_name)(_plain(_name))
