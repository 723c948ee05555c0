"""Temporary: the shape recorder until the fake's answer_shapes module is merged."""

from __future__ import annotations

import re
from typing import Any

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d+))?(Z|\+00:00)$")


def shape_of(value: Any) -> dict[str, Any]:
    """The structure of a JSON value."""
    if value is None:
        return {"type": "null"}
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        match = _DATE.match(value)
        if match:
            digits = len(match.group(1) or "")
            precision = {0: "seconds", 3: "milliseconds", 6: "microseconds"}.get(digits, "other")
            return {"type": "string", "form": f"date-time/{precision}/{match.group(2)}"}
        if value.count(".") == 2 and value.startswith("eyJ"):
            return {"type": "string", "form": "jwt"}
        if value.startswith(("http://", "https://")):
            return {"type": "string", "form": "uri-template" if "{" in value else "uri"}
        return {"type": "string", "form": "text"}
    if isinstance(value, list):
        return {"type": "array", "items": shape_of(value[0])} if value else {"type": "array"}
    if isinstance(value, dict):
        return {"type": "object", "keys": {str(k): shape_of(v) for k, v in value.items()}}
    return {"type": "string", "form": "text"}
