"""Whether a request writes: judged on what is sent, by the loader and again at send time.

A request writes when its HTTP method is anything but GET, HEAD or OPTIONS, or when it
carries a GraphQL document holding a mutation operation (the document is parsed; a document
that does not parse writes only if it names ``mutation``, since no server executes it). The
loader judges a step as written, with each ``${name}`` standing for an unknown value; the
runner judges the request again once every value is substituted, so no value captured from
an answer gets a write past a read-only run.
"""

from __future__ import annotations

import functools
import re

__all__ = ["SAFE_METHODS", "graphql_writes", "method_writes"]

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
"""The HTTP methods that are not writes."""

_MUTATION_WORD = re.compile(r"(?<![_0-9A-Za-z])mutation(?![_0-9A-Za-z])")
_TEMPLATE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def method_writes(method: str) -> bool:
    """Any method but GET, HEAD and OPTIONS writes."""
    return method.upper() not in SAFE_METHODS


@functools.lru_cache(maxsize=256)
def graphql_writes(document: str) -> bool:
    """Whether ``document`` holds a mutation operation. A document that does not parse
    writes if it names ``mutation``, or (at load) holds a ``${name}`` that could be one."""
    from graphql import GraphQLError, OperationDefinitionNode, OperationType, parse

    text = _TEMPLATE.sub("__patgate_value__", document)
    try:
        parsed = parse(text, no_location=True)
    except (GraphQLError, RecursionError):
        return _MUTATION_WORD.search(document) is not None or text != document
    return any(
        isinstance(node, OperationDefinitionNode) and node.operation is OperationType.MUTATION
        for node in parsed.definitions
    )
