"""The actions a ``control:`` step may take on a deployment patgate controls.

Each entry holds the JSON Schema fragment of the action's argument, the scenario format page's
line for it and its builder: ``build(builder, argument, where, loop_names)`` checks what a
schema cannot and notes what the action needs (``request_token`` creates a token). The runner
binds the executor (:mod:`patgate.runner.execution.control_performer`), which does the run's
share (the ledger) and asks the target's :class:`~patgate.runner.connection.config.Control` to act.

To add a control action: an entry here; how it is done, once for every ``Control``, in
``runner/connection/control_plane.py`` (a function of the control plane's operations under
``@_performs("name")``); then regenerate the schema
(``python -m patgate.scenario.schema_document``). Only an action with a share in the run
(a token it creates goes into the ledger) also needs an executor in
``runner/execution/control_performer.py`` under ``@CONTROL_ACTIONS.executes("name")``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from patgate.scenario.registry import Entry, Registry

if TYPE_CHECKING:
    from patgate.scenario.building import Building

__all__ = ["CONTROL_ACTIONS", "ControlBuild"]

ControlBuild = Callable[["Building", Any, list[str | int], set[str]], None]
"""``(builder, argument, where, loop_names)``: the load-time part of an action."""

CONTROL_ACTIONS: Registry[ControlBuild, Any] = Registry("control action")
"""Control action -> entry; executors perform it during a run."""

_PRINCIPAL = {"$ref": "#/$defs/principal"}
_ID = {"type": "string", "minLength": 1}


def _nothing(builder: Building, argument: Any, where: list[str | int], loop: set[str]) -> None:
    return None


def _creates(builder: Building, argument: Any, where: list[str | int], loop: set[str]) -> None:
    builder.writes = builder.creates = True
    builder.created_name(argument["name"], [*where, "name"])


def _an_expression(
    builder: Building, argument: Any, where: list[str | int], loop: set[str]
) -> None:
    builder.names(builder.expression(argument, where), where, loop)


def _action(
    name: str, schema: Mapping[str, Any], syntax: str, meaning: str, build: ControlBuild = _nothing
) -> None:
    CONTROL_ACTIONS.add(Entry(name, schema, build, syntax, meaning))


_action(
    "remove_user",
    _PRINCIPAL,
    "`remove_user: member`",
    "removes the principal (admin, member, removed, unpermitted) from the organization",
)
_action(
    "restore_user",
    _PRINCIPAL,
    "`restore_user: member`",
    "gives the principal back the role they had when the run began",
)
_action(
    "set_role",
    {
        "type": "object",
        "required": ["user", "role"],
        "additionalProperties": False,
        "properties": {"user": _PRINCIPAL, "role": {"enum": ["admin", "member", "restricted"]}},
    },
    "`set_role: {user, role}`",
    "gives the principal that role (admin, member, restricted)",
)
_action(
    "request_token",
    {
        "type": "object",
        "required": ["user", "name"],
        "additionalProperties": False,
        "properties": {"user": _PRINCIPAL, "name": {"type": "string", "minLength": 1}},
    },
    "`request_token: {user, name}`",
    "requests a token through the management UI path; answers `{id, token, status}`",
    _creates,
)
_action("approve", _ID, "`approve: id`", "an admin approves the pending token request")
_action("reject", _ID, "`reject: id`", "an admin rejects the pending token request")
_action(
    "advance_clock",
    {"$ref": "#/$defs/expression"},
    "`advance_clock: seconds`",
    "moves the deployment's clock forward",
    _an_expression,
)
