"""How much a rule of ``specs/rules.yaml`` weighs: the one vocabulary every layer shares."""

from __future__ import annotations

import enum

__all__ = ["Level"]


class Level(str, enum.Enum):
    """A gate's failure fails the run; an advisory rule's only warns (``--strict`` fails)."""

    GATE = "gate"
    ADVISORY = "advisory"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)
