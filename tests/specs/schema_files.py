"""The standalone JSON Schemas of ``specs/schemas/``, loaded and checked, for the spec tests."""

from __future__ import annotations

import functools
import json
from typing import Any

from jsonschema import Draft202012Validator

from patgate.basics.resources import specs_dir


def load_standalone(name: str) -> dict[str, Any]:
    """The parsed ``specs/schemas/<name>`` file."""
    schema: dict[str, Any] = json.loads((specs_dir() / "schemas" / name).read_text("utf-8"))
    return schema


@functools.cache
def standalone_validator(name: str) -> Draft202012Validator:
    """A validator for ``specs/schemas/<name>``, with format checking.

    The schema is first checked against the draft 2020-12 meta-schema, so a keyword given a
    value of the wrong type fails here instead of silently accepting everything.
    """
    schema = load_standalone(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
