"""How each control action is done, written once for every ``Control`` of the runner.

An action is a function of a :class:`ControlPlane` (what a control holds: the principals'
user ids and the roles they had when the run began; and the control-plane operations of the
deployment) and of its resolved argument, answering the values a scenario reads. The
embedded fake's :class:`~patgate.runner.connection.fake.FakeControl` acts through a
:class:`FakePlane` (the fake, in process); a served fake's
:class:`~patgate.runner.connection.served_fake_control.HttpControl` through a :class:`ClientPlane`
(the control API's client), so an action behaves the same on both.

To add an action made of the operations below: a function here under ``@_performs("name")``.
An action that needs another operation adds it to :class:`ControlPlane` and to both planes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from patgate.control_client import ControlClient
    from patgate.fake.model import Role
    from patgate.harness import Fake

__all__ = [
    "ACTIONS",
    "ClientPlane",
    "ControlPlane",
    "FakePlane",
    "OperationsPlane",
    "perform_on",
]


class ControlPlane(Protocol):
    """What a control holds, and the operations an action is made of."""

    def user_id(self, principal: str) -> str:
        """The user id of ``principal`` (``admin``, ``member``, ``removed``, ``unpermitted``)."""
        ...

    def role_at_start(self, principal: str) -> str | None:
        """The role ``principal`` had when the run began (``None``: not a member)."""
        ...

    def remove_user(self, user_id: str) -> None:
        """Remove the user from the organization."""
        ...

    def set_role(self, user_id: str, role: str) -> None:
        """Give the user ``role`` in the organization."""
        ...

    def request_token(self, user_id: str, name: str) -> dict[str, Any]:
        """Request a token through the management UI path: ``{id, name, token, status}``."""
        ...

    def approve(self, token_id: str) -> dict[str, Any]:
        """Approve a pending token request: ``{id, status}``."""
        ...

    def reject(self, token_id: str) -> None:
        """Reject a pending token request."""
        ...

    def advance_clock(self, seconds: float) -> None:
        """Move the deployment's clock forward."""
        ...


class OperationsPlane:
    """The control plane over the control operations, wherever they run: a ``Fake`` in this
    process or a served fake's ``ControlClient`` (the operations have the same names and
    arguments on both, :mod:`patgate.control.operations`). ``shown`` turns what they answer
    into the control API's JSON view, so an action reads one shape on both."""

    def __init__(
        self,
        operations: Fake | ControlClient,
        shown: Callable[[Any], Any],
        user_id: Callable[[str], str],
        role_at_start: Callable[[str], str | None],
    ) -> None:
        self._operations = operations
        self._shown = shown
        self.user_id = user_id
        self.role_at_start = role_at_start

    def remove_user(self, user_id: str) -> None:
        self._operations.remove_user(user_id)

    def set_role(self, user_id: str, role: str) -> None:
        self._operations.set_role(user_id, role)

    def request_token(self, user_id: str, name: str) -> dict[str, Any]:
        made = self._shown(self._operations.request_token_via_ui(user_id, name))
        return {
            "id": made["id"],
            "name": made["name"],
            "token": made["value"],
            "status": made["status"],
        }

    def approve(self, token_id: str) -> dict[str, Any]:
        record = self._shown(self._operations.approve_token_request(token_id))
        return {"id": record["id"], "status": record["status"]}

    def reject(self, token_id: str) -> None:
        self._operations.reject_token_request(token_id)

    def advance_clock(self, seconds: float) -> None:
        self._operations.advance_clock(seconds)


class FakePlane(OperationsPlane):
    """The control plane of a fake in this process."""

    def __init__(
        self, fake: Fake, user_ids: Mapping[str, str], roles: Mapping[str, Role | None]
    ) -> None:
        from patgate.fake.views import control_view

        starting = {name: role.value if role is not None else None for name, role in roles.items()}
        super().__init__(fake, control_view, dict(user_ids).__getitem__, starting.__getitem__)
        self.fake = fake


class ClientPlane(OperationsPlane):
    """The control plane of a served fake, through its control API.

    ``user_id`` and ``role_at_start`` come from the control that owns the client (it learns
    the principals once, before the first change).
    """

    def __init__(
        self,
        client: ControlClient,
        user_id: Callable[[str], str],
        role_at_start: Callable[[str], str | None],
    ) -> None:
        super().__init__(client, _as_it_is, user_id, role_at_start)
        self.client = client


def _as_it_is(answer: Any) -> Any:
    return answer


Action = Callable[[ControlPlane, Any], dict[str, Any]]
"""``(plane, resolved argument) -> the values a scenario reads``."""

ACTIONS: dict[str, Action] = {}
"""Control action -> how it is done (a test holds every registered action to an entry)."""


def _performs(name: str) -> Callable[[Action], Action]:
    def bind(action: Action) -> Action:
        ACTIONS[name] = action
        return action

    return bind


def perform_on(plane: ControlPlane, action: str, argument: Any) -> dict[str, Any]:
    """Do ``action`` on ``plane``; :class:`ValueError` for an action no entry does."""
    try:
        performed = ACTIONS[action]
    except KeyError:
        raise ValueError(f"unknown control action {action!r}") from None
    return performed(plane, argument)


@_performs("remove_user")
def _remove_user(plane: ControlPlane, argument: Any) -> dict[str, Any]:
    plane.remove_user(plane.user_id(argument))
    return {"removed": argument}


@_performs("restore_user")
def _restore_user(plane: ControlPlane, argument: Any) -> dict[str, Any]:
    user_id = plane.user_id(argument)
    role = plane.role_at_start(argument)
    if role is None:
        plane.remove_user(user_id)
    else:
        plane.set_role(user_id, role)
    return {"restored": argument, "role": role}


@_performs("set_role")
def _set_role(plane: ControlPlane, argument: Any) -> dict[str, Any]:
    plane.set_role(plane.user_id(argument["user"]), str(argument["role"]))
    return {"user": argument["user"], "role": argument["role"]}


@_performs("request_token")
def _request_token(plane: ControlPlane, argument: Any) -> dict[str, Any]:
    return plane.request_token(plane.user_id(argument["user"]), str(argument["name"]))


@_performs("approve")
def _approve(plane: ControlPlane, argument: Any) -> dict[str, Any]:
    return plane.approve(str(argument))


@_performs("reject")
def _reject(plane: ControlPlane, argument: Any) -> dict[str, Any]:
    plane.reject(str(argument))
    return {"id": argument, "status": "rejected"}


@_performs("advance_clock")
def _advance_clock(plane: ControlPlane, argument: Any) -> dict[str, Any]:
    plane.advance_clock(float(argument))
    return {"advanced": argument}
