"""Every full PAT value the run was given, and a look through each later response for them.

The values come from the target (its ``*_token`` keys that are PATs) and from every
response or control action that revealed one (a create). A response that holds any of them
fails PAT-SINGLE-REVEAL: the full value is returned once, by the create, and never again.
"""

from __future__ import annotations

import json
import threading

from patgate.basics.token_grammar import PatGrammar
from patgate.runner.model import Observed

__all__ = ["RevealedTokens"]


class RevealedTokens:
    """The run's registry of full PAT values, each with where it came from."""

    def __init__(self, pat: PatGrammar) -> None:
        self._shape = pat.shape
        self._scan = pat.scan
        self._origins: dict[str, str] = {}
        self._lock = threading.Lock()  # scenarios of one run add and look from several threads

    def add(self, value: str, origin: str) -> None:
        """Remember ``value`` (if it is a full PAT) as given by ``origin``."""
        if self._shape.fullmatch(value):
            with self._lock:
                self._origins.setdefault(value, origin)

    def learn(self, text: str, origin: str) -> list[str]:
        """Remember every full PAT in ``text``; returns the new ones."""
        with self._lock:
            found = set(self._scan.findall(text))
            new = [value for value in found if value not in self._origins]
            for value in new:
                self._origins[value] = origin
        return new

    def found_in(self, observed: Observed) -> list[str]:
        """Where each known value that appears in ``observed`` came from."""
        with self._lock:
            known = list(self._origins.items())
        if not known:
            return []
        haystacks = [observed.text, *observed.headers.values()]
        return sorted(
            {
                origin
                for value, origin in known
                if any(form in text for form in _forms(value) for text in haystacks)
            }
        )


def _forms(value: str) -> tuple[str, ...]:
    escaped = json.dumps(value)[1:-1]
    return (value,) if escaped == value else (value, escaped)
