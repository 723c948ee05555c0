"""The embedded fake as a target: its world as the keys, its transport, and control of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from patgate.errors import DomainError
from patgate.runner.model import ControlResult
from patgate.runner.target.config import TargetConfig

if TYPE_CHECKING:
    import httpx

    from patgate.fake.model import Role
    from patgate.harness import Fake

__all__ = ["FakeControl", "FakeTarget"]


class FakeTarget:
    """Runs scenarios against a :class:`patgate.Fake` in this process, with control of it.

    Writes are always allowed and waits move the fake's clock instead of sleeping.
    """

    live = False

    def __init__(self, fake: Fake | None = None, *, display: str = "embedded fake") -> None:
        if fake is None:
            from patgate.harness import Fake

            fake = Fake()
        self.fake = fake
        self.config = TargetConfig(fake.world)
        self.display = display
        self.control: FakeControl | None = FakeControl(fake)
        _load_whole_fake()

    def transport(self) -> httpx.BaseTransport:
        """A transport answering from the fake, with no network."""
        return self.fake.httpx_transport()


def _load_whole_fake() -> None:
    """Load now what the fake loads on first use (its GraphQL schema and executor, PyJWT for
    client tokens, the JSON encoder): a one-off import (about 60 ms) then counts in no
    scenario's time, nor in what ``--durations`` shows of its first step."""
    import jwt  # noqa: F401
    import orjson  # noqa: F401

    from patgate.fake import graph_executor  # noqa: F401
    from patgate.fake.graph_schema import graph_schema

    graph_schema()


class FakeControl:
    """The control steps of the scenario format, done on the fake's deployment.

    A principal (``admin``, ``member``, ``removed``, ``unpermitted``) is the default world's
    user of that name; ``restore_user`` gives them back the role they had when the run began.
    """

    def __init__(self, fake: Fake) -> None:
        self.fake = fake
        world = fake.default_world
        self.organization_id = world.organization_id
        self._user_ids = {
            "admin": world.admin_id,
            "member": world.member_id,
            "removed": world.removed_id,
            "unpermitted": world.unpermitted_id,
        }
        self._tokens = {
            "admin": world.admin_token,
            "member": world.member_token,
            "removed": world.removed_token,
            "unpermitted": world.unpermitted_token,
        }
        users = fake.deployment.users
        self._roles: dict[str, Role | None] = {
            name: users[user_id].memberships.get(self.organization_id)
            for name, user_id in self._user_ids.items()
        }

    def bearer_of(self, principal: str) -> str | None:
        """The world token of ``principal``."""
        return self._tokens.get(principal)

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's clock forward."""
        self.fake.advance_clock(seconds)

    def perform(self, action: str, argument: Any) -> ControlResult:
        """Do the control action; a refusal of the fake is a result that is not ``ok``."""
        try:
            values = self._perform(action, argument)
        except DomainError as error:
            return ControlResult(action, False, message=str(error), code=error.code)
        return ControlResult(action, True, values)

    def _perform(self, action: str, argument: Any) -> dict[str, Any]:
        method = getattr(self, f"_{action}", None) if action in self.ACTIONS else None
        if method is None:
            raise ValueError(f"unknown control action {action!r}")
        result: dict[str, Any] = method(argument)
        return result

    ACTIONS: tuple[str, ...] = (
        "remove_user",
        "restore_user",
        "set_role",
        "request_token",
        "approve",
        "reject",
        "advance_clock",
    )
    """The control actions this control performs (a test holds it equal to the registry)."""

    def _remove_user(self, argument: Any) -> dict[str, Any]:
        self.fake.remove_user(self._user_ids[argument])
        return {"removed": argument}

    def _restore_user(self, argument: Any) -> dict[str, Any]:
        role = self._roles[argument]
        if role is None:
            self.fake.remove_user(self._user_ids[argument])
        else:
            self.fake.set_role(self._user_ids[argument], role)
        return {"restored": argument, "role": role.value if role else None}

    def _set_role(self, argument: Any) -> dict[str, Any]:
        from patgate.fake.model import Role

        self.fake.set_role(self._user_ids[argument["user"]], Role(argument["role"]))
        return {"user": argument["user"], "role": argument["role"]}

    def _request_token(self, argument: Any) -> dict[str, Any]:
        created = self.fake.request_token_via_ui(
            self._user_ids[argument["user"]], str(argument["name"])
        )
        return {
            "id": created.record.id,
            "name": created.record.name,
            "token": created.value,
            "status": created.record.status.value,
        }

    def _approve(self, argument: Any) -> dict[str, Any]:
        record = self.fake.approve_token_request(str(argument))
        return {"id": record.id, "status": record.status.value}

    def _reject(self, argument: Any) -> dict[str, Any]:
        self.fake.reject_token_request(str(argument))
        return {"id": argument, "status": "rejected"}

    def _advance_clock(self, argument: Any) -> dict[str, Any]:
        self.fake.advance_clock(float(argument))
        return {"advanced": argument}
