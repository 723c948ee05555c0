"""``reference/scenario-format.md``: a scenario's keys, step kinds, checks, control actions
and expressions, from their registries and ``specs/scenario.schema.json``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from docs.reference_pages import (
    SPECS,
    cell,
    from_rst,
    generated_notice,
    schema_type,
    source,
)


def _keys(properties: dict[str, Any], kinds: set[str]) -> Iterator[str]:
    yield from ("| key | value | meaning |", "|---|---|---|")
    for key, fragment in properties.items():
        meaning = fragment.get("description", "") if isinstance(fragment, dict) else ""
        if key in kinds:
            meaning = meaning or f"a [{key} step](#step-kinds)"
        yield f"| `{key}` | {cell(schema_type(fragment))} | {cell(meaning)} |"
    yield ""


def _registry(registry: Any, *, with_options: bool = False) -> Iterator[str]:
    if with_options:
        yield from ("| name | written | passes when | options |", "|---|---|---|---|")
    else:
        yield from ("| name | written | meaning |", "|---|---|---|")
    for entry in registry:
        row = f"| `{entry.name}` | {cell(entry.syntax)} | {cell(entry.meaning)} |"
        if with_options:
            row += " " + cell(", ".join(f"`{name}`" for name in entry.options)) + " |"
        yield row
    yield ""


def render() -> str:
    """The page."""
    schema = json.loads(SPECS["scenario"].read_text(encoding="utf-8"))
    steps = source("step_kinds").STEP_KINDS
    kinds = set(steps.names())
    expressions = source("expressions")
    lines = [
        "# Scenario format",
        "",
        generated_notice(
            "the registries of step kinds, checks and control actions",
            "`specs/scenario.schema.json`",
        ),
        cell(schema.get("description", "")),
        "",
        "Editors can validate a scenario file against the schema: `patgate schema scenario`",
        "prints it.",
        "",
        "## A scenario's keys",
        "",
        *_keys(schema["properties"], set()),
        "## A step's keys",
        "",
        "A step holds exactly one step kind's key, and any of the others.",
        "",
        *_keys(schema["$defs"]["step"]["properties"], kinds),
        "## Step kinds",
        "",
        *_registry(steps),
        "## Checks",
        "",
        "The keys of a step's `expect:` (one check per entry).",
        "",
        *_registry(source("checks").CHECKS, with_options=True),
        "## Control actions",
        "",
        "The actions of a `control:` step, on a deployment patgate controls (the fake).",
        "",
        *_registry(source("control_actions").CONTROL_ACTIONS),
        "## Expressions",
        "",
        from_rst(expressions.__doc__ or ""),
        "",
        "The functions an expression may call: "
        + ", ".join(f"`{name}`" for name in expressions.FUNCTIONS)
        + ".",
        "",
        "## The schema",
        "",
        '??? note "specs/scenario.schema.json"',
        "",
        "    ```json",
        *("    " + line for line in json.dumps(schema, indent=2).splitlines()),
        "    ```",
        "",
    ]
    return "\n".join(lines)
