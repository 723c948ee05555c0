"""Check-then-act rules hold under concurrency: the cap of 5, single deletion, admin-only."""

from __future__ import annotations

import contextlib
import threading
import time

from patgate.errors import Forbidden, NotFound, TokenLimitReached
from patgate.fake.deployment import Deployment
from patgate.fake.model import CreatedToken, PatStatus, Principal, Role, User
from patgate.fake.pat_format import MintedPat, PatFormat

THREADS = 32


def _fresh_admin(deployment: Deployment) -> tuple[Principal, str]:
    org = deployment.add_organization("Race Inc")
    user = deployment.add_user("Ada Admin", "ada@example.test", org.id, Role.ADMIN)
    client_id, secret = deployment.add_client(user.id, org.id)
    token = deployment.issue_client_token(client_id, secret, "client_credentials").access_token
    return deployment.authenticate(token), org.id


def _race_creates(deployment: Deployment) -> tuple[int, int, int]:
    """32 threads released together each create one token; (created, refused, held)."""
    principal, org_id = _fresh_admin(deployment)
    barrier = threading.Barrier(THREADS)
    outcomes: list[str] = []

    def create() -> None:
        barrier.wait()
        try:
            deployment.create_token(principal, "race", org_id)
            outcomes.append("created")
        except TokenLimitReached:
            outcomes.append("refused")

    threads = [threading.Thread(target=create) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    held = len(list(deployment.tokens_of(principal.user_id)))
    return outcomes.count("created"), outcomes.count("refused"), held


def test_concurrent_creates_stop_at_exactly_five() -> None:
    for _ in range(50):
        assert _race_creates(Deployment()) == (5, THREADS - 5, 5)


class _SlowMint(PatFormat):
    """Gives other threads a chance to run between counting and inserting."""

    def mint(self) -> MintedPat:
        time.sleep(0.0005)
        return super().mint()


class RacyDeployment(Deployment):
    """A deliberately broken variant: no lock around count, mint and insert.

    The fault the race tests exist to catch (here and in ``tests/load``).
    """

    def __init__(self) -> None:
        super().__init__()
        self.pat_format = _SlowMint(self.pat_format.prefix)

    lock_factory = contextlib.nullcontext


def test_the_race_test_catches_a_deployment_without_the_lock() -> None:
    violations = 0
    for _ in range(5):
        created, _refused, held = _race_creates(RacyDeployment())
        violations += created > 5 or held > 5
    assert violations > 0, "the racy variant never went over the cap: the test proves nothing"


def test_two_threads_deleting_one_token_one_wins() -> None:
    deployment = Deployment()
    principal, org_id = _fresh_admin(deployment)
    for _ in range(20):
        token_id = deployment.create_token(principal, "doomed", org_id).record.id
        barrier = threading.Barrier(2)
        results: list[str] = []

        def delete(
            token_id: str = token_id,
            barrier: threading.Barrier = barrier,
            results: list[str] = results,
        ) -> None:
            barrier.wait()
            try:
                deployment.delete_token(principal, token_id)
                results.append("deleted")
            except NotFound:
                results.append("not found")

        pair = [threading.Thread(target=delete) for _ in range(2)]
        for thread in pair:
            thread.start()
        for thread in pair:
            thread.join()
        assert sorted(results) == ["deleted", "not found"]


class _DemotedDuringTheCheck(Deployment):
    """Another thread demotes the caller just after the role check, if the lock lets it.

    ``roles_at_insert`` keeps the creator's role at the moment each token is stored.
    """

    def __init__(self) -> None:
        super().__init__()
        self.roles_at_insert: list[Role | None] = []
        self.demoter: threading.Thread | None = None

    def role_of(self, principal: Principal) -> Role:
        role = super().role_of(principal)
        if self.demoter is None:
            self.demoter = threading.Thread(
                target=self.set_role,
                args=(principal.user_id, principal.organization_id, Role.MEMBER),
            )
            self.demoter.start()
            # Enough for the demotion to finish unless the caller still holds the lock.
            self.demoter.join(timeout=0.5)
        return role

    def mint_token(
        self, user: User, organization_id: str, name: str, status: PatStatus
    ) -> CreatedToken:
        self.roles_at_insert.append(self.users[user.id].memberships.get(organization_id))
        return super().mint_token(user, organization_id, name, status)


def test_a_demotion_during_a_create_never_lets_a_member_create() -> None:
    deployment = _DemotedDuringTheCheck()
    principal, org_id = _fresh_admin(deployment)
    try:
        deployment.create_token(principal, "raced", org_id)
    except Forbidden:
        pass  # the demotion landed first: refusing is right
    finally:
        assert deployment.demoter is not None
        deployment.demoter.join()
    assert deployment.roles_at_insert in ([], [Role.ADMIN])
    assert deployment.users[principal.user_id].memberships[org_id] is Role.MEMBER
