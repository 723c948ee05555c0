"""The checks an expectation may name: one registry entry per check.

Each entry holds the JSON Schema fragment of the check's argument and of its options, the
scenario format page's line for it, and its builder: ``build(builder, argument, options,
where)`` checks what a schema cannot (a path parses, a schema file exists) and returns the
argument as the runner will use it. The check function itself is bound by :mod:`patgate.checks`.

To add a check: declare it here (schema, documentation, builder), write its function in
``checks.py`` under ``@CHECKS.executes("name")``, regenerate the scenario schema
(``python -m patgate.scenario.schema_document``), and add a test with its
injected-fault twin.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from patgate.scenario.registry import Entry, Registry

if TYPE_CHECKING:
    from patgate.scenario.building import Building

__all__ = ["CHECKS", "CheckBuild"]

CheckBuild = Callable[["Building", Any, Mapping[str, Any], list[str | int]], Any]
"""``(builder, argument, options, where) -> argument``: the load-time part of a check."""

CHECKS: Registry[CheckBuild, Any] = Registry("check")
"""Check name (as an expectation writes it) -> entry; executors are the check functions."""


def _as_is(
    builder: Building, argument: Any, options: Mapping[str, Any], where: list[str | int]
) -> Any:
    return argument


def _a_path(
    builder: Building, argument: Any, options: Mapping[str, Any], where: list[str | int]
) -> Any:
    builder.path(argument, where)
    return argument


def _a_schema(
    builder: Building, argument: Any, options: Mapping[str, Any], where: list[str | int]
) -> Any:
    resolved = builder.schema(argument, where)
    if "at" in options:
        builder.path(options["at"], [*where[:-1], "at"])
    return resolved


def _check(
    name: str,
    argument: Mapping[str, Any],
    syntax: str,
    meaning: str,
    build: CheckBuild = _as_is,
    *,
    options: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> None:
    CHECKS.add(
        Entry(name, argument, build, syntax, meaning, dict(options or {}), dict(extra or {}))
    )


_PATH = {"type": "string"}
_TEXT = {"type": "string", "minLength": 1}

_check(
    "status",
    {
        "anyOf": [
            {"type": "integer", "minimum": 100, "maximum": 599},
            {"type": "string", "pattern": "^[1-5]xx$"},
            {"type": "array", "minItems": 1, "items": {"type": "integer"}},
        ],
        "errorMessage": "status is a code (200), a class (4xx) or a list of codes",
    },
    "`status: 200` / `4xx` / `[400, 401]`",
    "the status is that code, class or one of the codes",
)
_check(
    "error",
    {"const": True},
    "`error: true`",
    "an error is returned: an HTTP 4xx, or GraphQL `errors` with the field null (never a 5xx)",
)
_check("ok", {"const": True}, "`ok: true`", "a 2xx without GraphQL `errors`")
_check(
    "deleted",
    {
        "type": "boolean",
        "errorMessage": "deleted is true (the delete was done) or false (it was refused)",
    },
    "`deleted: true` / `false`",
    "the delete was done (a 2xx, no `errors`, a result neither null nor false, nor an object "
    "whose yes/no fields are all false) / it was refused in any form: an error, or such a "
    "null or false result (never a 5xx)",
)
_check(
    "schema",
    {
        "anyOf": [
            {"type": "string", "pattern": "^[A-Za-z0-9_.-]+\\.json$"},
            {"type": "object"},
        ],
        "errorMessage": "schema is a file name such as token-response.json, or an inline "
        "JSON Schema",
    },
    "`schema: token-response.json` (`at: path`)",
    "the body (or the value at `at`) is valid; a file next to the scenario or in "
    "`specs/schemas/`, or an inline schema",
    _a_schema,
    options={"at": {"type": "string"}},
)
_check(
    "path",
    _PATH,
    "`path: P` + `equals`, `not_equals`, `one_of`, `type`, `matches`, `exists`, `length`, "
    "`contains`, `not_contains`",
    "the value at `P` matches",
    _a_path,
    options={
        "equals": True,
        "not_equals": True,
        "one_of": {"type": "array"},
        "type": {"enum": ["string", "integer", "number", "boolean", "null", "object", "array"]},
        "matches": {"type": "string"},
        "exists": {"type": "boolean"},
        "length": {"type": ["integer", "string"]},
        "contains": True,
        "not_contains": True,
    },
    extra={
        "minProperties": 2,
        "errorMessage": "a path expectation needs a matcher: equals, not_equals, one_of, type, "
        "matches, exists, length, contains or not_contains",
    },
)
_check(
    "header",
    _TEXT,
    "`header: Name` + `equals`, `contains`, `matches`, `exists`",
    "the response header matches",
    options={
        "equals": {"type": "string"},
        "contains": {"type": "string"},
        "matches": {"type": "string"},
        "exists": {"type": "boolean"},
    },
)
_check(
    "masked",
    _PATH,
    "`masked: P` (`of: ${token}`, `hides_secret: true`)",
    "every token at `P` is a start then asterisks (with `of`: one of them is that token's "
    "masked form; with `hides_secret`: no start reaches the secret segment)",
    _a_path,
    options={"of": {"type": "string", "minLength": 1}, "hides_secret": {"type": "boolean"}},
)
_check(
    "date",
    _PATH,
    "`date: P` (`nullable: true`, `milliseconds: true`)",
    "an ISO 8601 UTC timestamp (`Z` or `+00:00`, any precision); with `milliseconds`, exactly "
    "three digits of fraction, `2023-11-21T14:36:00.916Z`",
    _a_path,
    options={"nullable": {"type": "boolean"}, "milliseconds": {"type": "boolean"}},
)
_check(
    "pat",
    _PATH,
    "`pat: P`",
    "`<pat_prefix><segment>.<segment>`, segments of any characters but a dot or white space",
    _a_path,
)
_check("absent", _TEXT, "`absent: ${secret}`", "the value appears nowhere in the response")
_check("present", _TEXT, "`present: X`", "the value appears in the response")
