"""The shape of every token patgate knows, written once.

A personal access token (PAT) is ``<prefix><id segment>.<secret segment>``: the prefix is
fixed per deployment (``amp_pat_`` by default), each segment is base64url without padding.
A client token is a JWT: three base64url parts, the first two JSON objects (so each starts
``eyJ``, the encoding of ``{"``), the signature possibly empty.

The fake mints and parses PATs with this grammar, the runner's checks and leak scans
recognise them with it, and the redactor hides them with it: one definition, so a value the
fake can mint is a value every other layer recognises.
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "ANY_PAT_SHAPE",
    "DEFAULT_PAT_PREFIX",
    "JWT_SHAPE",
    "SEGMENT",
    "documented_pat_shape",
    "is_documented_pat",
    "is_pat",
    "pat_shape",
    "pat_start",
    "split_pat",
    "valid_prefix",
]

DEFAULT_PAT_PREFIX = "amp_pat_"
"""The documented PAT prefix; a target file may name another (``pat_prefix``)."""

SEGMENT = r"[A-Za-z0-9_-]+"
"""One base64url segment of a PAT (no padding)."""

_SEGMENT = re.compile(SEGMENT)

JWT_SHAPE = re.compile(r"eyJ[A-Za-z0-9_-]+\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*")
"""A compact JWT: a JSON header, a JSON payload, a signature (empty for ``alg: none``)."""

ANY_PAT_SHAPE = re.compile(r"[A-Za-z0-9]+_pat_[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}")
"""A PAT under any ``<word>_pat_`` prefix, not only the configured one (segments of six
characters or more, so prose such as ``my_pat_a.b`` is not taken for a token)."""


def valid_prefix(prefix: str) -> bool:
    """Whether ``prefix`` can start a PAT: letters, digits, ``_`` or ``-``, not empty."""
    return bool(prefix) and _SEGMENT.fullmatch(prefix.rstrip("_-")) is not None


@functools.lru_cache(maxsize=32)
def pat_shape(prefix: str = DEFAULT_PAT_PREFIX) -> re.Pattern[str]:
    """A full PAT under ``prefix``: use ``fullmatch`` to judge a value, ``search`` to find
    one in text."""
    return re.compile(re.escape(prefix) + SEGMENT + r"\." + SEGMENT)


@functools.lru_cache(maxsize=32)
def pat_start(prefix: str = DEFAULT_PAT_PREFIX) -> re.Pattern[str]:
    """``prefix`` and every token character after it: a PAT, or any piece of one."""
    return re.compile(re.escape(prefix) + r"[A-Za-z0-9_.-]*")


def split_pat(value: str, prefix: str = DEFAULT_PAT_PREFIX) -> tuple[str, str] | None:
    """``(id segment, secret segment)`` of a well-formed PAT, or ``None``."""
    if not value.startswith(prefix):
        return None
    id_segment, dot, secret = value[len(prefix) :].partition(".")
    if not dot or not _SEGMENT.fullmatch(id_segment) or not _SEGMENT.fullmatch(secret):
        return None
    return id_segment, secret


def is_pat(value: object, prefix: object = DEFAULT_PAT_PREFIX) -> bool:
    """Whether ``value`` is a full PAT under ``prefix`` (``False`` for anything not a str)."""
    if not isinstance(value, str) or not isinstance(prefix, str):
        return False
    return split_pat(value, prefix) is not None


@functools.lru_cache(maxsize=32)
def documented_pat_shape(prefix: str = DEFAULT_PAT_PREFIX) -> re.Pattern[str]:
    """A PAT as the specification describes it: ``prefix``, a segment, a dot and a second
    segment, in no particular alphabet (any characters but a dot or white space). Use it to
    judge a deployment; :func:`pat_shape` is the fake's own base64url form."""
    return re.compile(re.escape(prefix) + r"[^.\s]+\.[^.\s]+")


def is_documented_pat(value: object, prefix: object = DEFAULT_PAT_PREFIX) -> bool:
    """Whether ``value`` has the documented shape of a PAT under ``prefix``."""
    if not isinstance(value, str) or not isinstance(prefix, str):
        return False
    return documented_pat_shape(prefix).fullmatch(value) is not None
