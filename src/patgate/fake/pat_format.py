"""The shape of a personal access token: ``<prefix><id segment>.<secret segment>``.

The id segment is 16 random bytes in base64url (22 characters), as in the documented
example; the secret segment is 32 random bytes (256 bits). Only a SHA-256 hash of the whole
value is stored, and comparison is constant-time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from patgate.basics.token_grammar import DEFAULT_PAT_PREFIX, split_pat, valid_prefix

__all__ = ["DEFAULT_PREFIX", "MASK_VISIBLE", "MASK_WIDTH", "MintedPat", "PatFormat", "new_secret"]

DEFAULT_PREFIX = DEFAULT_PAT_PREFIX
MASK_VISIBLE = 8
"""Characters of the id segment shown in listings after the prefix."""
MASK_WIDTH = 32
"""Asterisks after the visible start: fixed, so the listing does not leak the length."""


def new_secret(nbytes: int = 32) -> str:
    """A random URL-safe secret of ``nbytes`` bytes (an API client's secret, the control
    token, the page's key) that never starts with ``-``: a command line would read
    ``--clientSecret -x...`` as options, as the vendor's CLI does, so one start in 64 would
    break the documented ``dc-cli ... --clientSecret "$CLIENT_SECRET"``."""
    while True:
        value = secrets.token_urlsafe(nbytes)
        if not value.startswith("-"):
            return value


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


@dataclass(frozen=True)
class MintedPat:
    """A new PAT: the value to hand out once, and what is stored in its place."""

    value: str
    id_segment: str
    secret_hash: bytes
    masked: str

    def __repr__(self) -> str:
        return f"MintedPat(masked={self.masked!r})"


class PatFormat:
    """Mints, parses, masks and verifies PAT values for one prefix."""

    def __init__(
        self,
        prefix: str = DEFAULT_PREFIX,
        *,
        visible: int = MASK_VISIBLE,
        mask_character: str = "*",
        mask_width: int = MASK_WIDTH,
    ) -> None:
        if not valid_prefix(prefix):
            raise ValueError(f"a PAT prefix is letters, digits, '_' or '-': {prefix!r}")
        self.prefix = prefix
        self._visible = visible
        self._mask = mask_character * mask_width

    def mint(self) -> MintedPat:
        """A new random value with its hash and masked form."""
        raw = secrets.token_bytes(48)  # one read of the system's randomness for both parts
        id_segment = _b64url(raw[:16])
        value = f"{self.prefix}{id_segment}.{_b64url(raw[16:])}"
        return MintedPat(value, id_segment, self.hash(value), self.mask(id_segment))

    def mask(self, id_segment: str) -> str:
        """The listing's form: the prefix, the id segment's start, fixed-width asterisks
        (how many characters and asterisks: the profile's ``masked_token``)."""
        return f"{self.prefix}{id_segment[: self._visible]}{self._mask}"

    @staticmethod
    def hash(value: str) -> bytes:
        """SHA-256 of ``value``: what is stored instead of a secret."""
        return hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()

    def id_segment_of(self, value: str) -> str | None:
        """The id segment of a well-formed value, or ``None`` (no hint of what was wrong)."""
        parts = split_pat(value, self.prefix)
        return None if parts is None else parts[0]

    def matches(self, value: str, secret_hash: bytes) -> bool:
        """Whether ``value`` hashes to ``secret_hash`` (compared in constant time)."""
        return hmac.compare_digest(self.hash(value), secret_hash)
