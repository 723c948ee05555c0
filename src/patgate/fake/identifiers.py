"""Identifiers in the shapes the real service uses (Relay global ids, 24-hex hub ids)."""

from __future__ import annotations

import base64
import binascii
import random
import uuid

__all__ = ["IdFactory", "decode_global_id", "global_id"]


def global_id(type_name: str, local_id: str) -> str:
    """A Relay-style global id: base64 of ``Type:local``."""
    return base64.b64encode(f"{type_name}:{local_id}".encode()).decode("ascii")


def decode_global_id(value: str) -> tuple[str, str] | None:
    """``(type, local id)`` of a global id, or ``None`` when ``value`` is not one."""
    try:
        raw = base64.b64decode(value.encode("ascii"), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        return None
    type_name, sep, local = raw.partition(":")
    if not sep or not type_name or not local:
        return None
    return type_name, local


class IdFactory:
    """Makes ids from a seeded generator, so the same world gets the same ids every run.

    Ids are not secrets; token secrets come from :mod:`secrets`, never from here.
    """

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def uuid(self) -> str:
        return str(uuid.UUID(int=self._random.getrandbits(128), version=4))

    def hub_id(self) -> str:
        return f"{self._random.getrandbits(96):024x}"

    def organization_id(self) -> str:
        return global_id("Organization", f"org_{self._random.getrandbits(64):016x}")

    def user_id(self) -> str:
        return global_id("User", self.uuid())

    def token_id(self, user_uuid: str) -> str:
        return global_id("PersonalAccessToken", f"{user_uuid}/{self.uuid()}")
