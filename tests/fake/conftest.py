from __future__ import annotations

from datetime import datetime, timezone

import pytest

from patgate.fake.clock import Clock
from patgate.fake.deployment import Deployment
from patgate.fake.model import Principal
from patgate.fake.world import DefaultWorld, build_default_world

START = datetime(2023, 11, 21, 14, 36, 0, 916000, tzinfo=timezone.utc)


@pytest.fixture
def deployment() -> Deployment:
    return Deployment(clock=Clock(START))


@pytest.fixture
def world(deployment: Deployment) -> DefaultWorld:
    return build_default_world(deployment)


@pytest.fixture
def admin(deployment: Deployment, world: DefaultWorld) -> Principal:
    return deployment.authenticate(world.admin_token)


@pytest.fixture
def member(deployment: Deployment, world: DefaultWorld) -> Principal:
    return deployment.authenticate(world.member_token)
