"""Where a scenario's inline JSON Schema refers outside itself.

The limits on reading a scenario file or a target file (size, nesting, aliases, tags) are
those of every supplied file: :mod:`patgate.guards.supplied_files`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["foreign_refs"]


def foreign_refs(schema: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """Where an inline JSON Schema holds a ``$ref`` (or ``$dynamicRef``) that leaves the
    schema itself: ``(path, reference)`` for each; only ``#...`` pointers stay inside."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), schema)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("$ref", "$dynamicRef") and not (
                    isinstance(item, str) and item.startswith("#")
                ):
                    found.append(((*where, key), str(item)))
                else:
                    stack.append(((*where, str(key)), item))
        elif isinstance(value, list):
            stack.extend(((*where, index), item) for index, item in enumerate(value))
    return sorted(found, key=lambda pair: [str(part) for part in pair[0]])
