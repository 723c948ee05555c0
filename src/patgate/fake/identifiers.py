"""Identifiers in the shapes the real service uses (Relay global ids, 24-hex hub ids)."""

from __future__ import annotations

import base64
import functools
import random
from typing import Any

__all__ = ["IdFactory", "global_id"]

# RFC 4122 version 4: the variant bits (10xx) and the version nibble (0100), as uuid.UUID sets.
_UUID_KEEP = ~((0xC000 << 48) | (0xF000 << 64))
_UUID_VERSION_4 = (0x8000 << 48) | (4 << 76)


def global_id(type_name: str, local_id: str) -> str:
    """A Relay-style global id: base64 of ``Type:local``."""
    return base64.b64encode(f"{type_name}:{local_id}".encode()).decode("ascii")


@functools.lru_cache(maxsize=16)
def _start_of(seed: int) -> tuple[Any, ...]:
    return random.Random(seed).getstate()


class IdFactory:
    """Makes ids from a seeded generator, so the same world gets the same ids every run.

    Ids are not secrets; token secrets come from :mod:`secrets`, never from here.
    """

    def __init__(self, seed: int) -> None:
        # Every fake of a seed starts from the same position: copying it is cheaper than
        # seeding anew (which every test's fake would do), and so is skipping the seeding
        # from the system's entropy that ``Random()`` does first.
        self._random = random.Random.__new__(random.Random)
        self._random.setstate(_start_of(seed))

    def uuid(self) -> str:
        """A version-4 UUID from the seeded generator (what ``uuid.UUID(int=..., version=4)``
        prints, formatted directly: a world of 100,000 users makes 600,000 of them)."""
        value = (self._random.getrandbits(128) & _UUID_KEEP) | _UUID_VERSION_4
        text = f"{value:032x}"
        return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"

    def hub_id(self) -> str:
        """A hub id: 24 hex characters, as the content API's ids are."""
        return f"{self._random.getrandbits(96):024x}"

    def organization_id(self) -> str:
        """An organization's global id (``Organization:org_<16 hex>``)."""
        return global_id("Organization", f"org_{self._random.getrandbits(64):016x}")

    def token_id(self, user_uuid: str) -> str:
        """A PAT's global id (``PersonalAccessToken:<user uuid>/<uuid>``)."""
        return global_id("PersonalAccessToken", f"{user_uuid}/{self.uuid()}")

    def position(self) -> tuple[Any, ...]:
        """The generator's position, to continue from with :meth:`move_to` (cheaper than
        :meth:`random_state`'s JSON values, for a position kept in memory)."""
        return self._random.getstate()

    def move_to(self, position: tuple[Any, ...]) -> None:
        """Continue from a position given by :meth:`position`."""
        self._random.setstate(position)

    def random_state(self) -> list[Any]:
        """The generator's position as JSON values, for a saved state."""
        version, internal, gauss = self._random.getstate()
        return [version, list(internal), gauss]

    def set_random_state(self, state: list[Any]) -> None:
        """Continue from a position given by :meth:`random_state`."""
        version, internal, gauss = state
        self._random.setstate((version, tuple(internal), gauss))
