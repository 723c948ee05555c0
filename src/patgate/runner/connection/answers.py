"""Every answer the runner reads for its own use, decoded into typed values in one place.

The runner reads a deployment's answers for itself in a few places: the secrets an answer
reveals (an access token, a created PAT), the id a create answers, the creator's listing
(the custodian settles creates and checks deletes with it), the introspection that shapes
the GraphQL documents, and the viewer's organizations. A deployment may answer anything:
each decoder here returns typed values or raises :class:`~patgate.errors.UnexpectedAnswer`
naming the field (as a path, ``data.viewer.personalAccessTokens[2].name``) and what came
instead (``a list``), so a wrong JSON type ends as a failed step, never a ``TypeError``.
A listing is decoded entry by entry: an entry that does not decode is set aside as a
:class:`MalformedEntry` naming that path, and the entries that do stay usable.

What the scenarios check is not decoded here: a check reads the raw body and fails with
its own message (:mod:`patgate.runner.execution.scenario_execution` turns a check that cannot
read an answer into a failed check).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patgate.errors import UnexpectedAnswer
from patgate.runner.model import NOT_JSON, Observed

__all__ = [
    "CreatedToken",
    "GraphqlAnswer",
    "ListedToken",
    "MalformedEntry",
    "TokenListing",
    "TypeRef",
    "created_token",
    "describe",
    "graphql_answer",
    "organization_ids",
    "revealed_secrets",
    "schema_fields",
    "token_listing",
]

_SHOWN = 60
"""Characters of an unexpected text value a message quotes."""
_TYPE_DEPTH = 8
"""``ofType`` levels a type reference may have (the runner asks for three)."""


def describe(value: Any) -> str:
    """What came, in words: ``a list``, ``the number 12``, ``null``, ``the text 'x'``."""
    if value is NOT_JSON:
        return "no JSON"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int):
        digits = len(str(value)) if abs(value) < 10**40 else 41
        return f"the number {value}" if digits <= 40 else "a number of more than 40 digits"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= _SHOWN else value[: _SHOWN - 3] + "..."
        return f"the text {shown!r}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _wrong(path: str, expected: str, value: Any) -> UnexpectedAnswer:
    return UnexpectedAnswer(f"{path}: expected {expected}, got {describe(value)}")


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _wrong(path, "an object", value)
    return value


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise _wrong(path, "a list", value)
    return value


def _text(value: Any, path: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value):
        raise _wrong(path, "text" if empty else "a non-empty text", value)
    return value


def _optional_text(value: Any, path: str) -> str | None:
    return None if value is None else _text(value, path, empty=True)


# -- GraphQL ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphqlAnswer:
    """A GraphQL answer's envelope: ``data`` (``None`` when absent or null) and ``errors``
    (their messages; empty when absent)."""

    data: Mapping[str, Any] | None
    errors: tuple[str, ...]
    has_data: bool
    """Whether the answer carried a ``data`` key at all (null included)."""


def graphql_answer(observed: Observed) -> GraphqlAnswer:
    """The envelope of a GraphQL answer: an object whose ``data`` is an object or null and
    whose ``errors``, when present and not null, is a list of objects with a text
    ``message``."""
    body = observed.body
    if body is NOT_JSON:
        raise UnexpectedAnswer(f"the answer (HTTP {observed.status}) is not JSON")
    body = _object(body, "the answer")
    data = body.get("data")
    if data is not None:
        _object(data, "data")
    messages: list[str] = []
    if body.get("errors") is not None:  # some servers write "errors": null for none
        for index, error in enumerate(_list(body["errors"], "errors")):
            where = f"errors[{index}]"
            messages.append(
                _text(_object(error, where).get("message"), f"{where}.message", empty=True)
            )
    return GraphqlAnswer(data, tuple(messages), "data" in body)


@dataclass(frozen=True)
class CreatedToken:
    """What a create answered: the id, and the token value when it was shown."""

    id: str
    token: str | None


def created_token(observed: Observed) -> CreatedToken | None:
    """The token a ``createPersonalAccessToken`` answer names, or ``None`` when the answer
    names none (an error, a null field). :class:`UnexpectedAnswer` when it names one in a
    shape no create answers with (an id that is a number, a list, empty...)."""
    answer = graphql_answer(observed)
    if answer.data is None:
        return None
    created = answer.data.get("createPersonalAccessToken")
    if created is None:
        return None
    path = "data.createPersonalAccessToken"
    created = _object(created, path)
    token_id = _text(created.get("id"), f"{path}.id")
    token = _optional_text(created.get("token"), f"{path}.token")
    return CreatedToken(token_id, token)


@dataclass(frozen=True)
class ListedToken:
    """One token of a listing: its id and name (nothing else is read)."""

    id: str
    name: str


@dataclass(frozen=True)
class MalformedEntry:
    """An entry of a listing that does not decode as a token: never trusted, so never deleted
    and never proof that a token is the run's.

    ``problem`` names the entry's index and field
    (``data.viewer.personalAccessTokens[2].name: expected text, got a list of 1``). ``id``
    and ``name`` are the entry's fields when they are text: never taken as the entry's id
    or name, only to keep a token of that id or name from looking absent."""

    index: int
    problem: str
    id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class TokenListing:
    """A listing decoded entry by entry: the tokens that decode fully, in order (each with
    its whole object in ``entries``, for the fields the custodian does not read), and the
    entries that do not."""

    tokens: tuple[ListedToken, ...]
    entries: tuple[Mapping[str, Any], ...] = ()
    malformed: tuple[MalformedEntry, ...] = ()

    def ids(self) -> frozenset[str]:
        """The ids of the tokens, and the text ids of malformed entries: every id this
        listing may hold (an id among them is not new after it)."""
        found = {token.id for token in self.tokens}
        found.update(entry.id for entry in self.malformed if entry.id is not None)
        return frozenset(found)

    def may_hold(self, token_id: str | None, name: str) -> bool:
        """Whether a malformed entry may be the token ``token_id`` named ``name``: its id
        or its name is that text. Such a token is not shown absent by this listing."""
        return any(
            (token_id is not None and entry.id == token_id) or entry.name == name
            for entry in self.malformed
        )


def token_listing(observed: Observed) -> TokenListing:
    """The tokens of a ``viewer { personalAccessTokens }`` answer, entry by entry: HTTP 200,
    ``data.viewer.personalAccessTokens`` a list (else :class:`UnexpectedAnswer`); each
    entry an object with a non-empty text ``id`` and a text ``name`` is a token, any other
    entry a :class:`MalformedEntry` naming its index and field."""
    if observed.status != 200:
        raise UnexpectedAnswer(f"the listing was answered HTTP {observed.status}")
    answer = graphql_answer(observed)
    if answer.data is None:
        why = f": {answer.errors[0]}" if answer.errors else ""
        raise UnexpectedAnswer(f"data: expected an object, got null{why}")
    viewer = _object(answer.data.get("viewer"), "data.viewer")
    path = "data.viewer.personalAccessTokens"
    tokens: list[ListedToken] = []
    entries: list[Mapping[str, Any]] = []
    malformed: list[MalformedEntry] = []
    for index, item in enumerate(_list(viewer.get("personalAccessTokens"), path)):
        try:
            tokens.append(_listed_token(item, f"{path}[{index}]"))
        except UnexpectedAnswer as error:
            malformed.append(_malformed(index, item, str(error)))
        else:
            entries.append(item)
    return TokenListing(tuple(tokens), tuple(entries), tuple(malformed))


def _listed_token(item: Any, where: str) -> ListedToken:
    item = _object(item, where)
    for key in ("id", "name"):
        if key not in item:
            raise UnexpectedAnswer(f"{where}.{key}: missing")
    return ListedToken(
        _text(item["id"], f"{where}.id"), _text(item["name"], f"{where}.name", empty=True)
    )


def _malformed(index: int, item: Any, problem: str) -> MalformedEntry:
    if not isinstance(item, dict):
        return MalformedEntry(index, problem)
    token_id, name = item.get("id"), item.get("name")
    return MalformedEntry(
        index,
        problem,
        token_id if isinstance(token_id, str) and token_id else None,
        name if isinstance(name, str) else None,
    )


def revealed_secrets(observed: Observed) -> list[str]:
    """The secret values an answer reveals: the token endpoint's ``access_token`` and a
    create's ``token``, when they are text (any other type reveals nothing)."""
    body = observed.body
    if not isinstance(body, dict):
        return []
    found = []
    access_token = body.get("access_token")
    if isinstance(access_token, str):
        found.append(access_token)
    data = body.get("data")
    created = data.get("createPersonalAccessToken") if isinstance(data, dict) else None
    if isinstance(created, dict) and isinstance(created.get("token"), str):
        found.append(created["token"])
    return found


# -- introspection ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TypeRef:
    """An introspection type reference: ``kind``, ``name`` and what it wraps."""

    kind: str
    name: str | None
    of_type: TypeRef | None = None

    def unwrap(self) -> tuple[str, str | None, bool]:
        """``(kind, name, is_list)`` once NON_NULL and LIST are peeled."""
        ref: TypeRef | None = self
        is_list = False
        while ref is not None and ref.kind in ("NON_NULL", "LIST"):
            is_list = is_list or ref.kind == "LIST"
            ref = ref.of_type
        if ref is None:
            return "", None, is_list
        return ref.kind, ref.name, is_list


def _type_ref(value: Any, path: str, depth: int = 0) -> TypeRef | None:
    if value is None:
        return None
    item = _object(value, path)
    kind = _text(item.get("kind"), f"{path}.kind")
    name = _optional_text(item.get("name"), f"{path}.name")
    inner = None
    if depth < _TYPE_DEPTH:
        inner = _type_ref(item.get("ofType"), f"{path}.ofType", depth + 1)
    return TypeRef(kind, name, inner)


def schema_fields(observed: Observed, path: Sequence[str]) -> dict[str, TypeRef | None]:
    """The fields of an introspection answer at ``path`` (``("__schema", "mutationType")``
    under ``data``), by name, with their type when it was asked. An object or type that is
    null (no mutation type) has no fields."""
    answer = graphql_answer(observed)
    where = "data"
    value: Any = answer.data
    for key in path:
        if value is None:
            return {}
        value = _object(value, where).get(key)
        where = f"{where}.{key}"
    if value is None:
        return {}
    fields_path = f"{where}.fields"
    fields = _object(value, where).get("fields")
    if fields is None:
        return {}
    found: dict[str, TypeRef | None] = {}
    for index, item in enumerate(_list(fields, fields_path)):
        item_path = f"{fields_path}[{index}]"
        item = _object(item, item_path)
        name = _text(item.get("name"), f"{item_path}.name")
        found[name] = _type_ref(item.get("type"), f"{item_path}.type")
    return found


# -- organizations ----------------------------------------------------------------------------

_ORGANIZATION_ITEMS: Mapping[str, tuple[str, ...]] = {
    "connection": ("edges", "node"),
    "nodes": ("nodes",),
    "list": (),
}
"""Per shape of ``viewer.organizations``: the list under it, then the way to each item."""


def organization_ids(observed: Observed, shape: str) -> list[str]:
    """The organization ids of an answer to the organizations document in ``shape``
    (``connection``: ``edges[].node.id``; ``nodes``: ``nodes[].id``; ``list``: ``[].id``).
    An answer that does not hold that shape (an error, another shape) holds none."""
    answer = graphql_answer(observed)
    if answer.data is None:
        return []
    viewer = answer.data.get("viewer")
    if viewer is None:
        return []
    where = "data.viewer.organizations"
    value = _object(viewer, "data.viewer").get("organizations")
    if value is None:
        return []
    steps = _ORGANIZATION_ITEMS[shape]
    if steps:
        if not isinstance(value, dict) or steps[0] not in value:
            return []  # another shape: the caller tries the next one
        where = f"{where}.{steps[0]}"
        value = value[steps[0]]
    elif isinstance(value, dict):
        return []  # a connection or nodes object: another shape
    ids = []
    for index, item in enumerate(_list(value, where)):
        item_path = f"{where}[{index}]"
        for step in steps[1:]:
            item = _object(item, item_path).get(step)
            item_path = f"{item_path}.{step}"
        ids.append(_text(_object(item, item_path).get("id"), f"{item_path}.id"))
    return ids
