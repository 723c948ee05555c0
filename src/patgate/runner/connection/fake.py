"""The embedded fake as a target: its world as the keys, its transport, and control of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from patgate.errors import DomainError
from patgate.runner.connection.config import TargetConfig
from patgate.runner.connection.control_plane import FakePlane, perform_on
from patgate.runner.model import ControlResult

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
    """The control steps of the scenario format, done on the fake's deployment (each
    action as :mod:`patgate.runner.connection.control_plane` does it, through a ``FakePlane``).

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
        roles: dict[str, Role | None] = {
            name: users[user_id].memberships.get(self.organization_id)
            for name, user_id in self._user_ids.items()
        }
        self._plane = FakePlane(fake, self._user_ids, roles)

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
        return perform_on(self._plane, action, argument)
