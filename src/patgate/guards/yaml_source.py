"""YAML documents that remember the line of every value, so errors can point at it.

Shared by the scenario loader, the waivers file and the fake's profile (a foundation module:
it imports only :mod:`patgate.errors` and PyYAML).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from patgate.errors import ScenarioError

__all__ = ["PathKey", "SourceDocument", "read_documents"]

PathKey = tuple[str | int, ...]


@dataclass(frozen=True)
class SourceDocument:
    """One YAML document: its plain data and the 1-based line of each value in it."""

    data: Any
    path: str
    lines: Mapping[PathKey, int]

    @property
    def line(self) -> int:
        """The first line of the document."""
        return self.lines.get((), 1)

    def line_of(self, where: Sequence[str | int]) -> int:
        """The line of the deepest value along ``where`` that the document has."""
        key = tuple(where)
        while key and key not in self.lines:
            key = key[:-1]
        return self.lines.get(key, self.line)

    def error(self, message: str, where: Sequence[str | int] = ()) -> ScenarioError:
        """A :class:`ScenarioError` pointing at the value along ``where``."""
        return ScenarioError(message, path=self.path, line=self.line_of(where))


def read_documents(text: str, path: str) -> list[SourceDocument]:
    """Every document of a YAML stream, with lines. Only plain YAML is accepted (safe loader),
    and no alias of a mapping or a list (a file a user supplies is first checked by
    :func:`patgate.guards.supplied_files.check_yaml_text`, which refuses every alias and anchor).

    Raises :class:`ScenarioError` naming the line of a syntax error or a duplicated key.
    """
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = loader_class(text)
    documents: list[SourceDocument] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:  # pragma: no cover - check_node said there is one
                break
            lines: dict[PathKey, int] = {}
            _walk(node, (), lines, path, set())
            documents.append(SourceDocument(loader.construct_document(node), path, lines))
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = error.problem or error.context or "not valid YAML"
        raise ScenarioError(f"not valid YAML: {problem}", path=path, line=line) from None
    except yaml.YAMLError as error:
        raise ScenarioError(f"not valid YAML: {error}", path=path) from None
    finally:
        loader.dispose()
    return documents


def _walk(
    node: Any, where: PathKey, lines: dict[PathKey, int], path: str, walked: set[int]
) -> None:
    import yaml

    if isinstance(node, yaml.CollectionNode):
        # A collection met twice is a YAML alias: walking it again for each path to it is
        # how 600 bytes become billions of steps. Refused here too, whatever read the text;
        # the line is the anchored value's (the node does not know where it is repeated).
        if id(node) in walked:
            raise ScenarioError(
                "YAML aliases are not accepted: write the value out",
                path=path,
                line=node.start_mark.line + 1,
            )
        walked.add(id(node))
    lines[where] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in seen:
                raise ScenarioError(
                    f"the key {key!r} appears twice", path=path, line=key_node.start_mark.line + 1
                )
            seen.add(key)
            child = (*where, key)
            _walk(value_node, child, lines, path, walked)
            # A key's own line is where a message about the key (unknown, misspelt) points.
            lines[child] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, (*where, index), lines, path, walked)
