"""What a vocabulary entry's builder sees of the scenario being built.

The builders of :mod:`~patgate.scenario.check_kinds`, :mod:`~patgate.scenario.step_kinds`
and :mod:`~patgate.scenario.control_actions` are handed a :class:`Building`: the notes a
step makes on its scenario (target keys, writes, waits, ...) and the checks it may ask for
(a path, an expression, a schema, a name). :class:`~patgate.scenario._step_builder.StepBuilder` is
the one implementation; the registries name this protocol, so they sit below it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from patgate.errors import ScenarioError

__all__ = ["Building"]


class Building(Protocol):
    """The scenario being built, as a vocabulary entry's builder uses it."""

    target_keys: set[str]
    """Target-file keys the scenario's steps use as credentials or values."""
    writes: bool
    creates: bool
    untracked_writes: bool
    waits: bool
    uses_control: bool

    def error(self, message: str, where: Sequence[str | int]) -> ScenarioError:
        """A located error naming ``where``."""
        ...

    def schema(self, argument: Any, where: list[str | int]) -> Any:
        """A schema file's path, or an inline schema checked."""
        ...

    def path(self, text: str, where: list[str | int]) -> None:
        """Refuse a path that does not parse."""
        ...

    def expression(self, text: str | int, where: list[str | int]) -> set[str]:
        """The names an expression refers to."""
        ...

    def names(
        self, names: set[str], where: list[str | int], loop_names: set[str] | None = None
    ) -> None:
        """Refuse a name that is not defined at this point of the scenario."""
        ...

    def created_name(self, value: Any, where: list[str | int]) -> None:
        """Refuse a created token's name that the ledger could not find again."""
        ...

    def deleted_id(self, value: Any, where: list[str | int]) -> None:
        """Refuse a delete of a literal id."""
        ...
