"""The GraphQL documents of the named operations, shaped to what the target declares.

Two things the spec leaves open are learned once per run through introspection, when the
target allows it: whether ``deletePersonalAccessToken`` returns a scalar or an object (an
object needs a selection), and the shape of ``viewer.organizations``. A target file may
replace any document under ``documents``; its text then receives the operation's input as
variables (``$name``, ``$organizationId``, ``$id``).

The built-in documents write arguments inline, as GraphQL string literals, so they depend
on no input type name: those are not published.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from patgate.runner.model import Observed
from patgate.scenario.paths import PathMissing, resolve_path

__all__ = ["Documents", "organization_ids"]

_TOKEN_FIELDS = "id name token createdDate lastUsedDate"
_TYPE_REF = "kind name ofType { kind name ofType { kind name ofType { kind name } } }"
_ROOTS = (
    "{ __schema { mutationType { fields { name type { "
    + _TYPE_REF
    + " } } } queryType { fields { name type { "
    + _TYPE_REF
    + " } } } } }"
)
_ORGANIZATION_SHAPES: Mapping[str, str] = {
    "connection": "organizations { edges { node { id name } } }",
    "nodes": "organizations { nodes { id name } }",
    "list": "organizations { id name }",
}
_ORGANIZATION_PATHS: Mapping[str, str] = {
    "connection": "data.viewer.organizations.edges[*].node.id",
    "nodes": "data.viewer.organizations.nodes[*].id",
    "list": "data.viewer.organizations[*].id",
}

Send = Callable[[str], Observed]
"""Sends a query (no variables) and returns the answer."""


def _literal(value: object) -> str:
    # JSON string syntax with ASCII escapes is also a valid GraphQL string literal.
    return json.dumps("" if value is None else str(value), ensure_ascii=True)


def _unwrap(type_ref: Any) -> tuple[str, str | None, bool]:
    """``(kind, name, is_list)`` of a type reference once NON_NULL and LIST are peeled."""
    is_list = False
    while isinstance(type_ref, dict) and type_ref.get("kind") in ("NON_NULL", "LIST"):
        is_list = is_list or type_ref["kind"] == "LIST"
        type_ref = type_ref.get("ofType")
    if not isinstance(type_ref, dict):
        return "", None, is_list
    return str(type_ref.get("kind", "")), type_ref.get("name"), is_list


def _fields(observed: Observed, path: str) -> dict[str, Any]:
    try:
        fields = resolve_path(observed.body, path)
    except PathMissing:
        return {}
    if not isinstance(fields, list):
        return {}
    return {f["name"]: f.get("type") for f in fields if isinstance(f, dict) and "name" in f}


class Documents:
    """Builds ``(query, variables)`` for each named operation of one target."""

    def __init__(self, overrides: Mapping[str, str] | None = None) -> None:
        self.overrides = dict(overrides or {})
        self.delete_selection: str | None = None
        """``""`` for a scalar result, ``" { __typename }"`` for an object, ``None``: unknown."""
        self.organizations_shape: str | None = None
        self.discovered = False

    # -- learning the target's shapes -------------------------------------------------------------

    def discover(self, send: Send) -> None:
        """Ask the target's schema, once; whatever cannot be learned keeps its fallback."""
        if self.discovered:
            return
        self.discovered = True
        roots = send(_ROOTS)
        if roots.status != 200:
            return
        mutations = _fields(roots, "data.__schema.mutationType.fields")
        kind, _, _ = _unwrap(mutations.get("deletePersonalAccessToken"))
        if kind in ("SCALAR", "ENUM"):
            self.delete_selection = ""
        elif kind in ("OBJECT", "INTERFACE", "UNION"):
            self.delete_selection = " { __typename }"
        queries = _fields(roots, "data.__schema.queryType.fields")
        _, viewer_type, _ = _unwrap(queries.get("viewer"))
        if viewer_type:
            self._learn_organizations(send, viewer_type)

    def _learn_organizations(self, send: Send, viewer_type: str) -> None:
        selection = f"fields {{ name type {{ {_TYPE_REF} }} }}"
        viewer = send(f"{{ __type(name: {_literal(viewer_type)}) {{ {selection} }} }}")
        kind, name, is_list = _unwrap(_fields(viewer, "data.__type.fields").get("organizations"))
        if is_list and kind == "OBJECT":
            self.organizations_shape = "list"
        elif kind == "OBJECT" and name:
            connection = send(f"{{ __type(name: {_literal(name)}) {{ fields {{ name }} }} }}")
            fields = _fields(connection, "data.__type.fields")
            if "edges" in fields:
                self.organizations_shape = "connection"
            elif "nodes" in fields:
                self.organizations_shape = "nodes"

    def learn_delete_from(self, observed: Observed) -> bool:
        """After a delete with an unknown result type: ``True`` if it should be resent with a
        selection (the document did not validate: errors and no ``data``)."""
        if self.delete_selection is not None or "delete_token" in self.overrides:
            return False
        body = observed.body
        failed = isinstance(body, dict) and body.get("errors") and "data" not in body
        self.delete_selection = " { __typename }" if failed else ""
        return bool(failed)

    # -- the documents ------------------------------------------------------------------------

    def viewer(self) -> tuple[str, dict[str, Any]]:
        """The viewer with its id, name, email and tokens."""
        default = (
            f"query {{ viewer {{ id name email personalAccessTokens {{ {_TOKEN_FIELDS} }} }} }}"
        )
        return self.overrides.get("viewer", default), {}

    def organizations(self, shape: str | None = None) -> tuple[str, dict[str, Any]]:
        """The viewer's organizations, in ``shape`` (default: what was learned)."""
        chosen = shape or self.organizations_shape or "connection"
        default = f"query {{ viewer {{ id {_ORGANIZATION_SHAPES[chosen]} }} }}"
        return self.overrides.get("organizations", default), {}

    def create_token(self, name: Any, organization_id: Any) -> tuple[str, dict[str, Any]]:
        """A create for ``name`` in ``organization_id``."""
        if "create_token" in self.overrides:
            variables = {"name": name, "organizationId": organization_id}
            return self.overrides["create_token"], variables
        document = (
            "mutation { createPersonalAccessToken(input: "
            f"{{name: {_literal(name)}, organizationId: {_literal(organization_id)}}}) "
            f"{{ {_TOKEN_FIELDS} }} }}"
        )
        return document, {}

    def delete_token(self, token_id: Any) -> tuple[str, dict[str, Any]]:
        """A delete of ``token_id``, with a selection if the result is an object."""
        if "delete_token" in self.overrides:
            return self.overrides["delete_token"], {"id": token_id}
        selection = self.delete_selection or ""
        field = f"deletePersonalAccessToken(input: {{id: {_literal(token_id)}}})"
        document = f"mutation {{ {field}{selection} }}"
        return document, {}

    def operation(self, name: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The document of a named operation with its (resolved) args."""
        if name == "viewer":
            return self.viewer()
        if name == "organizations":
            return self.organizations()
        if name == "create_token":
            return self.create_token(args.get("name"), args.get("organization_id"))
        return self.delete_token(args.get("id"))


def organization_ids(observed: Observed, shape: str | None) -> list[str]:
    """The organization ids in an answer to :meth:`Documents.organizations`."""
    for candidate in (shape,) if shape else tuple(_ORGANIZATION_PATHS):
        try:
            found = resolve_path(observed.body, _ORGANIZATION_PATHS[candidate])
        except PathMissing:
            continue
        ids = [value for value in found if isinstance(value, str)]
        if ids:
            return ids
    return []
