"""Every JSON Schema keyword the specs use is one the tools know, and the generator takes any.

The schemas are walked keyword by keyword (the scenario, rules, report and waivers schemas,
the standalone ones under ``specs/schemas/`` and both OpenAPI documents' component schemas):
a keyword outside draft 2020-12, OpenAPI 3.1's additions and ajv-errors' ``errorMessage`` is
a typo that every validator would silently ignore. Then each keyword found is given to the
scenario schema's generator as a check's further keyword, as a new check would, and the
generated schema must still be a valid schema.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from patgate.basics.resources import specs_dir
from patgate.scenario.registry import Entry, Registry
from patgate.scenario.schema_document import _expectation, scenario_schema

# Keywords whose value is a map of names to subschemas, a subschema, or a list of them.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SUBSCHEMAS = (
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "items",
    "contains",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")

_ANNOTATIONS = {
    "$schema", "$id", "$defs", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary",
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "contentMediaType", "contentEncoding", "contentSchema",
    "then", "else",  # read by "if"
}  # fmt: skip
_OPENAPI = {"discriminator", "xml", "externalDocs", "example"}
_OWN = {
    "errorMessage",  # ajv-errors' custom message, read by the loader and the editor
    "x-patgate-path",  # config.schema.json: a value resolved against pyproject.toml's folder
}
KNOWN = set(Draft202012Validator.VALIDATORS) | _ANNOTATIONS | _OPENAPI | _OWN


def _keywords(schema: Any, where: str) -> Iterator[tuple[str, Any, str]]:
    """``(keyword, value, where)`` for every keyword of ``schema`` and its subschemas."""
    if not isinstance(schema, dict):
        return
    for keyword, value in schema.items():
        yield keyword, value, where
        if keyword in _SCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from _keywords(sub, f"{where}/{keyword}/{name}")
        elif keyword in _SUBSCHEMAS:
            yield from _keywords(value, f"{where}/{keyword}")
        elif keyword in _SCHEMA_LISTS and isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _keywords(sub, f"{where}/{keyword}/{index}")


def _spec_schemas() -> Iterator[tuple[str, Any]]:
    specs = specs_dir()
    for path in sorted([*specs.glob("*.schema.json"), *(specs / "schemas").glob("*.json")]):
        yield path.name, json.loads(path.read_text(encoding="utf-8"))
    for name in ("openapi.yaml", "control-openapi.yaml"):
        document = yaml.safe_load((specs / name).read_text(encoding="utf-8"))
        for schema_name, schema in document.get("components", {}).get("schemas", {}).items():
            yield f"{name}#/components/schemas/{schema_name}", schema


def _all_keywords() -> dict[str, tuple[Any, str]]:
    """Each keyword the specs use -> its first value and where it is."""
    found: dict[str, tuple[Any, str]] = {}
    for name, schema in _spec_schemas():
        for keyword, value, where in _keywords(schema, name):
            found.setdefault(keyword, (value, where))
    return found


def test_the_walk_reaches_the_specs_schemas() -> None:
    found = _all_keywords()
    # The walk reads nested schemas, not only the top level of each file.
    assert {"type", "properties", "required", "minProperties", "errorMessage"} <= set(found)


def test_every_keyword_the_specs_use_is_known() -> None:
    unknown = {
        keyword: where
        for keyword, (_value, where) in _all_keywords().items()
        if keyword not in KNOWN
    }
    assert not unknown, f"keywords no validator knows (a typo?): {unknown}"


def test_the_generator_takes_every_keyword_as_a_checks_further_keyword() -> None:
    # One toy check per keyword the specs use, each declaring it as a further keyword, as a
    # new check would; the generated schema must hold each and stay a valid schema.
    found = _all_keywords()
    checks: Registry[object, object] = Registry("check")
    for index, (keyword, (value, _where)) in enumerate(sorted(found.items())):
        extra = {keyword: value}
        toy = Entry(f"toy_{index}", {"type": "string"}, object(), "`t`", "t", extra=extra)
        checks.add(toy)
    schema = scenario_schema()
    schema["$defs"]["expectation"] = _expectation(schema["$defs"]["expectation"], checks)
    branches = schema["$defs"]["expectation"]["allOf"]
    for index, (keyword, (value, _where)) in enumerate(sorted(found.items())):
        then = branches[index]["then"]
        if keyword == "properties":  # further properties join the check's own
            assert value.items() <= then["properties"].items()
        else:
            assert then[keyword] == value, keyword
        assert then["properties"][f"toy_{index}"] == {"type": "string"}
    Draft202012Validator.check_schema(schema)
