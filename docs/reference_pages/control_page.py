"""``reference/control-api.md``: every path and method of ``specs/control-openapi.yaml``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml
from docs.reference_pages import SPECS, cell, generated_notice, schema_type

METHODS = ("get", "put", "post", "delete", "patch")


def load() -> dict[str, Any]:
    """The control API's OpenAPI document."""
    document: dict[str, Any] = yaml.safe_load(SPECS["control"].read_text(encoding="utf-8"))
    return document


def _resolve(document: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _link(fragment: Any) -> str:
    """The type of a schema fragment, linking a named schema to its section."""
    if isinstance(fragment, dict) and "$ref" in fragment:
        name = fragment["$ref"].rsplit("/", 1)[-1]
        return f"[`{name}`](#{name.lower()})"
    if isinstance(fragment, dict) and fragment.get("type") == "array":
        return f"list of {_link(fragment.get('items', {}))}"
    return cell(schema_type(fragment))


def _fields(document: dict[str, Any], schema: Any) -> Iterator[str]:
    schema = _resolve(document, schema)
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    if not properties:
        if schema:
            yield f"A {_link(schema)}."
            yield ""
        return
    required = set(schema.get("required", []))
    yield from ("| field | type | required | meaning |", "|---|---|---|---|")
    for name, fragment in properties.items():
        text = _resolve(document, fragment).get("description", "")
        yes = "yes" if name in required else ""
        yield f"| `{name}` | {_link(fragment)} | {yes} | {cell(text)} |"
    yield ""


def _json_schema(document: dict[str, Any], holder: Any) -> Any:
    content = _resolve(document, holder).get("content", {})
    return content.get("application/json", {}).get("schema")


def _operation(document: dict[str, Any], path: str, method: str, operation: Any) -> list[str]:
    lines = [f"## `{method.upper()} {path}`", "", cell(operation.get("summary", "")), ""]
    if operation.get("description"):
        lines += [cell(operation["description"]), ""]
    parameters = [_resolve(document, p) for p in operation.get("parameters", [])]
    if parameters:
        lines += ["Parameters:", "", "| name | in | type | required | meaning |"]
        lines.append("|---|---|---|---|---|")
        for p in parameters:
            yes = "yes" if p.get("required") else ""
            lines.append(
                f"| `{p['name']}` | {p['in']} | {_link(p.get('schema', {}))} | {yes} "
                f"| {cell(p.get('description', ''))} |"
            )
        lines.append("")
    if "requestBody" in operation:
        lines += [
            "Request body (JSON):",
            "",
            *_fields(document, _json_schema(document, operation["requestBody"])),
        ]
    lines += ["Answers:", "", "| status | meaning | body |", "|---|---|---|"]
    for status, answer in operation.get("responses", {}).items():
        resolved = _resolve(document, answer)
        body = _json_schema(document, answer)
        lines.append(
            f"| {status} | {cell(resolved.get('description', ''))} "
            f"| {_link(body) if body else ''} |"
        )
    lines.append("")
    schema = _json_schema(document, operation["responses"].get("200", {}))
    if isinstance(schema, dict) and "properties" in schema:
        lines += ["The 200 answer's fields:", "", *_fields(document, schema)]
    return lines


def render() -> str:
    """The page."""
    document = load()
    info = document.get("info", {})
    lines = [
        "# Control API",
        "",
        generated_notice("`specs/control-openapi.yaml`"),
        cell(info.get("description", "")),
        "",
        "| method | path | what it does |",
        "|---|---|---|",
    ]
    operations = [
        (path, method, item[method])
        for path, item in document["paths"].items()
        for method in METHODS
        if method in item
    ]
    for path, method, operation in operations:
        lines.append(f"| `{method.upper()}` | `{path}` | {cell(operation.get('summary', ''))} |")
    lines.append("")
    for path, method, operation in operations:
        lines += _operation(document, path, method, operation)
    lines += ["## Schemas", ""]
    for name, schema in document.get("components", {}).get("schemas", {}).items():
        lines += [f"### {name}", "", cell(schema.get("description", "")), ""]
        lines += list(_fields(document, schema))
    return "\n".join(lines)
