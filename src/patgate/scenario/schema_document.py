"""The scenario JSON Schema, with its vocabularies generated from the registries.

``specs/scenario.schema.json`` is the published schema. Its step kinds, control actions,
check names and check options come from :data:`~patgate.scenario.step_kinds.STEP_KINDS`,
:data:`~patgate.scenario.control_actions.CONTROL_ACTIONS` and
:data:`~patgate.scenario.check_kinds.CHECKS`; the rest (ids, rules, captures, loops) is
written in the file. The loader validates against :func:`scenario_schema`, and a test
requires the file to equal it. After changing a registry, regenerate the file (the site's
scenario format page is generated from the registries when the site is built)::

    python -m patgate.scenario.schema_document
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

from patgate.basics.resources import specs_dir
from patgate.scenario.check_kinds import CHECKS
from patgate.scenario.model import PRINCIPALS
from patgate.scenario.registry import Registry
from patgate.scenario.step_kinds import STEP_KINDS
from patgate.service.target_contract import TARGET_KEYS

__all__ = ["scenario_schema", "schema_path", "write"]


def schema_path() -> Path:
    """The published schema file."""
    return specs_dir() / "scenario.schema.json"


# Where an entry's further keywords go in its ``then`` schema: counts before the properties,
# everything else after them (any keyword of the draft, or the errorMessage of ajv-errors).
# Further properties join the generated ones.
_BEFORE_PROPERTIES = ("minProperties", "maxProperties")
_PLACED = (*_BEFORE_PROPERTIES, "properties")


def _expectation(base: dict[str, Any], checks: Registry[Any, Any] = CHECKS) -> dict[str, Any]:
    """The expectation schema of ``base`` (the file's) with the vocabulary of ``checks``."""
    names = ["rule"]
    for entry in checks:
        for key in (entry.name, *entry.options):
            if key not in names:
                names.append(key)
    every = list(checks.names())
    shown = ", ".join(every[:-1]) + f" or {every[-1]}"
    expectation = dict(base)
    expectation["propertyNames"] = {**base["propertyNames"], "enum": names}
    expectation["oneOf"] = [{"required": [name]} for name in every]
    expectation["errorMessage"] = f"an expectation holds exactly one check: {shown}"
    expectation["allOf"] = [
        {
            "if": {"required": [entry.name]},
            "then": {
                "additionalProperties": False,
                **{k: v for k, v in entry.extra.items() if k in _BEFORE_PROPERTIES},
                "properties": {
                    "rule": {"$ref": "#/$defs/ruleId"},
                    entry.name: dict(entry.schema),
                    **{key: value for key, value in entry.options.items()},
                    **entry.extra.get("properties", {}),
                },
                **{k: v for k, v in entry.extra.items() if k not in _PLACED},
            },
        }
        for entry in checks
    ]
    return expectation


@functools.lru_cache(maxsize=1)
def _generated() -> str:
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    defs = schema["$defs"]
    defs["targetKey"] = {**defs["targetKey"], "enum": list(TARGET_KEYS)}
    defs["principal"] = {**defs["principal"], "enum": list(PRINCIPALS)}
    step = defs["step"]
    properties: dict[str, Any] = {}
    for key, value in step["properties"].items():
        if key in STEP_KINDS:
            continue
        properties[key] = value
        if key == "rule":
            # The step kinds follow the name and the rule, in registry order.
            properties.update({entry.name: dict(entry.schema) for entry in STEP_KINDS})
    step["properties"] = properties
    defs["expectation"] = _expectation(defs["expectation"])
    return json.dumps(schema)


def scenario_schema() -> dict[str, Any]:
    """The scenario schema: the file's structure with the registries' vocabularies."""
    return copy.deepcopy(json.loads(_generated()))


def write() -> None:
    """Rewrite the schema file."""
    text = json.dumps(scenario_schema(), indent=2, ensure_ascii=False) + "\n"
    schema_path().write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write()
