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

from patgate.errors import UnexpectedAnswer
from patgate.runner.connection import answers
from patgate.runner.connection.answers import TypeRef
from patgate.runner.model import Observed

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

Send = Callable[[str], Observed]
"""Sends a query (no variables) and returns the answer."""


def _literal(value: object) -> str:
    # JSON string syntax with ASCII escapes is also a valid GraphQL string literal.
    return json.dumps("" if value is None else str(value), ensure_ascii=True)


class Documents:
    """Builds ``(query, variables)`` for each named operation of one target."""

    def __init__(self, overrides: Mapping[str, str] | None = None) -> None:
        self.overrides = dict(overrides or {})
        self.delete_selection: str | None = None
        """``""`` for a scalar result, ``" { __typename }"`` for an object, ``None``: unknown."""
        self.organizations_shape: str | None = None
        self.discovered = False
        self.problem: UnexpectedAnswer | None = None
        """Why the introspection could not be read (an answer of the wrong shape): every
        later :meth:`discover` raises it, so each step that needs the shapes fails."""

    # -- learning the target's shapes -------------------------------------------------------------

    def discover(self, send: Send) -> None:
        """Ask the target's schema, once; whatever cannot be learned keeps its fallback.

        An introspection answer of the wrong shape (a list where a name belongs, ``fields``
        as an object...) raises :class:`UnexpectedAnswer`, now and at every later call."""
        if self.problem is not None:
            raise self.problem
        if self.discovered:
            return
        self.discovered = True
        try:
            self._discover(send)
        except UnexpectedAnswer as error:
            self.problem = UnexpectedAnswer(f"the target's introspection answer: {error}")
            raise self.problem from None

    def _discover(self, send: Send) -> None:
        roots = send(_ROOTS)
        if roots.status != 200:
            return
        mutations = answers.schema_fields(roots, ("__schema", "mutationType"))
        kind, _, _ = _unwrap(mutations.get("deletePersonalAccessToken"))
        if kind in ("SCALAR", "ENUM"):
            self.delete_selection = ""
        elif kind in ("OBJECT", "INTERFACE", "UNION"):
            self.delete_selection = " { __typename }"
        queries = answers.schema_fields(roots, ("__schema", "queryType"))
        _, viewer_type, _ = _unwrap(queries.get("viewer"))
        if viewer_type:
            self._learn_organizations(send, viewer_type)

    def _learn_organizations(self, send: Send, viewer_type: str) -> None:
        selection = f"fields {{ name type {{ {_TYPE_REF} }} }}"
        viewer = send(f"{{ __type(name: {_literal(viewer_type)}) {{ {selection} }} }}")
        if viewer.status != 200:
            return
        fields = answers.schema_fields(viewer, ("__type",))
        kind, name, is_list = _unwrap(fields.get("organizations"))
        if is_list and kind == "OBJECT":
            self.organizations_shape = "list"
        elif kind == "OBJECT" and name:
            connection = send(f"{{ __type(name: {_literal(name)}) {{ fields {{ name }} }} }}")
            if connection.status != 200:
                return
            names = answers.schema_fields(connection, ("__type",))
            if "edges" in names:
                self.organizations_shape = "connection"
            elif "nodes" in names:
                self.organizations_shape = "nodes"

    def learn_delete_from(self, observed: Observed, token_id: Any, sent: str) -> bool:
        """After the delete ``sent`` for ``token_id``: ``True`` if it should be resent, as
        :meth:`delete_token` builds it now. It did not validate (errors and no ``data``) and
        the selection now known differs from the one sent: learned from this answer, or
        meanwhile by a request beside it (the introspection of another step, say)."""
        if "delete_token" in self.overrides:
            return False
        try:
            answer = answers.graphql_answer(observed)
        except UnexpectedAnswer:
            return False  # not a GraphQL answer: nothing to learn; the step's checks say why
        failed = bool(answer.errors) and not answer.has_data
        if self.delete_selection is None:
            self.delete_selection = " { __typename }" if failed else ""
        return failed and self.delete_token(token_id)[0] != sent

    def organization_shapes(self) -> tuple[str | None, ...]:
        """The shapes to send the organizations query in, one after the other until the
        target does not reject the document: the learned one (or the target file's
        document), else every known shape (a target that answers no introspection)."""
        if self.organizations_shape or "organizations" in self.overrides:
            return (None,)
        return tuple(_ORGANIZATION_SHAPES)

    def learn_organizations_from(self, observed: Observed, shape: str | None) -> bool:
        """After an organizations query in ``shape``: ``True`` if the target rejected the
        document (errors and no ``data``), so the next shape should be tried. An answer
        with data and no errors keeps the shape for the rest of the run; any other answer
        (a refusal) teaches nothing."""
        if shape is None or self.organizations_shape is not None:
            return False
        try:
            answer = answers.graphql_answer(observed)
        except UnexpectedAnswer:
            return False  # not a GraphQL answer: the step's checks say why
        if answer.errors and not answer.has_data:
            return True
        if answer.has_data and not answer.errors:
            self.organizations_shape = shape
        return False

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


def _unwrap(type_ref: TypeRef | None) -> tuple[str, str | None, bool]:
    return type_ref.unwrap() if type_ref is not None else ("", None, False)


def organization_ids(observed: Observed, shape: str | None) -> list[str]:
    """The organization ids in an answer to :meth:`Documents.organizations` (in ``shape``,
    or in whichever shape holds some); :class:`UnexpectedAnswer` for a value of the wrong
    type on the way."""
    for candidate in (shape,) if shape else tuple(_ORGANIZATION_SHAPES):
        ids = answers.organization_ids(observed, candidate)
        if ids:
            return ids
    return []
