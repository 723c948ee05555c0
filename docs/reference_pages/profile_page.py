"""``reference/profile.md``: every field of a profile file, from ``specs/profile.schema.json``,
with its default from the shipped profile."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from docs.reference_pages import SPECS, cell, generated_notice, schema_type


def fields(schema: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """``(dotted path, fragment)`` of every property, parents before their children."""
    for name, fragment in schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        yield path, fragment
        if isinstance(fragment, dict):
            yield from fields(fragment, f"{path}.")
            items = fragment.get("items")
            if isinstance(items, dict) and "properties" in items:
                yield from fields(items, f"{path}[].")
            values = fragment.get("additionalProperties")
            if isinstance(values, dict) and "properties" in values:
                yield from fields(values, f"{path}.*.")


def default_at(profile: Any, path: str) -> Any:
    """The shipped profile's value at ``path``, or ``...`` when it has none there."""
    value = profile
    for part in path.split("."):
        if part.endswith("[]") or part == "*" or not isinstance(value, dict):
            return ...
        if part not in value:
            return ...
        value = value[part]
    return value


def _shown(value: Any) -> str:
    if value is ...:
        return ""
    text = json.dumps(value)
    return f"`{text}`" if len(text) <= 80 else "(see the shipped profile below)"


def render() -> str:
    """The page."""
    schema = json.loads(SPECS["profile"].read_text(encoding="utf-8"))
    shipped = json.loads(SPECS["default_profile"].read_text(encoding="utf-8"))
    lines = [
        "# Profile fields",
        "",
        generated_notice("`specs/profile.schema.json`", "the shipped profile"),
        cell(schema.get("description", "")),
        "",
        "[What a profile is for](../profile.md), and how `patgate calibrate` writes one and",
        "`patgate compare` checks it, is explained apart; this page lists every field.",
        "",
        "| field | type | default | meaning |",
        "|---|---|---|---|",
    ]
    for path, fragment in fields(schema):
        text = fragment.get("description", "") if isinstance(fragment, dict) else ""
        default = _shown(default_at(shipped, path))
        lines.append(
            f"| `{path}` | {cell(schema_type(fragment))} | {cell(default)} | {cell(text)} |"
        )
    lines += [
        "",
        '??? note "The shipped profile (src/patgate/fake/default_profile.json)"',
        "",
        "    ```json",
        *("    " + line for line in json.dumps(shipped, indent=2).splitlines()),
        "    ```",
        "",
    ]
    return "\n".join(lines)
