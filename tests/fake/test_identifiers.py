"""Identifiers: the same seed gives the same ids, in the shapes the real service uses."""

from __future__ import annotations

import random
import uuid

from patgate.fake.identifiers import IdFactory


def test_uuids_are_the_seeded_version_4_uuids_the_standard_library_makes() -> None:
    factory, reference = IdFactory(20231121), random.Random(20231121)
    for _ in range(2000):
        made = factory.uuid()
        assert made == str(uuid.UUID(int=reference.getrandbits(128), version=4))
        assert uuid.UUID(made).version == 4
