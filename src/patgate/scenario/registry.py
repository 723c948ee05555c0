"""Registries of the scenario format's vocabularies: check names, step kinds, control actions.

One :class:`Entry` binds a name to everything the project knows about it: the JSON Schema
fragment of its value (the scenario schema is generated from the entries), a line of
documentation (the site's scenario format page is generated from it), its builder (how the
loader turns a validated value into a typed one) and its executor (how the runner performs it).

The scenario layer declares entries with their schema, documentation and builder; the layer
that performs them binds the executor with :meth:`Registry.executes` (``checks`` binds the
check functions, ``runner/execution/step_senders.py`` the step kinds,
``runner/execution/control_performer.py`` the control actions),
the way a plugin registry works: the lower layer never imports the upper one.
:meth:`Registry.unbound` lists the entries still without an executor; a test and the runner
require none.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, TypeVar

__all__ = ["Entry", "Registry"]

BuildT = TypeVar("BuildT")
ExecT = TypeVar("ExecT")


@dataclass(frozen=True)
class Entry(Generic[BuildT]):
    """One word of a vocabulary."""

    name: str
    schema: Mapping[str, Any]
    """The JSON Schema fragment of the value this word takes in a scenario."""
    build: BuildT
    """What the loader calls to check and type the value (see each registry's module)."""
    syntax: str
    """How a scenario writes it, for the scenario format page: ``status: 200``."""
    meaning: str
    """What it does or when it passes, for the scenario format page."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Checks only: the JSON Schema fragment of each option beside the check's own key."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Checks only: further keywords of the expectation's schema (``minProperties``)."""


class Registry(Generic[BuildT, ExecT]):
    """An ordered vocabulary: entries by name, each with at most one executor."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[str, Entry[BuildT]] = {}
        self._executors: dict[str, ExecT] = {}

    def add(self, entry: Entry[BuildT]) -> Entry[BuildT]:
        """Declare ``entry``; a name is declared once."""
        if entry.name in self._entries:
            raise ValueError(f"{self.what} {entry.name!r} is declared twice")
        self._entries[entry.name] = entry
        return entry

    def executes(self, name: str) -> Callable[[ExecT], ExecT]:
        """A decorator binding the executor of ``name`` (declared, and bound once)."""

        def bind(executor: ExecT) -> ExecT:
            if name not in self._entries:
                raise ValueError(f"no {self.what} {name!r} is declared")
            if name in self._executors:
                raise ValueError(f"{self.what} {name!r} already has an executor")
            self._executors[name] = executor
            return executor

        return bind

    def executor(self, name: str) -> ExecT:
        """The executor bound to ``name``."""
        try:
            return self._executors[name]
        except KeyError:
            raise LookupError(f"{self.what} {name!r} has no executor") from None

    def unbound(self) -> list[str]:
        """Names declared without an executor (the runner refuses to start with any)."""
        return [name for name in self._entries if name not in self._executors]

    @property
    def executors(self) -> Mapping[str, ExecT]:
        """Name -> executor, read-only."""
        return MappingProxyType(self._executors)

    def names(self) -> tuple[str, ...]:
        """The names in declaration order."""
        return tuple(self._entries)

    def __getitem__(self, name: str) -> Entry[BuildT]:
        return self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[Entry[BuildT]]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def table(self, heading: tuple[str, str]) -> str:
        """The Markdown table of the entries (a page may carry it verbatim)."""
        rows = [f"| {heading[0]} | {heading[1]} |", "|---|---|"]
        rows += [f"| {entry.syntax} | {entry.meaning} |" for entry in self]
        return "\n".join(rows)
