"""What running a GraphQL request gives, before anyone decides how to answer it over HTTP.

The executor (:mod:`patgate.fake.graph_executor`) returns a :class:`GraphOutcome`; the wire
layer turns it into a status and a body. This module imports no GraphQL library, so the wire
layer can name these types without paying for graphql-core.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from patgate.errors import DomainError

__all__ = ["Failure", "GraphOutcome", "GraphProblem"]


class Failure(str, enum.Enum):
    """Why a request did not execute (the wire layer picks its code and status)."""

    QUERY_TOO_LARGE = "the query is too long"
    QUERY_TOO_DEEP = "the query is nested too deeply"
    PARSE = "the document does not parse"
    VALIDATION = "the document does not validate against the schema"
    INPUT = "the variables or arguments do not fit their types"


@dataclass(frozen=True)
class GraphProblem:
    """One error of a GraphQL result, with what caused it.

    ``error`` is the GraphQL error as the spec formats it (``message``, and ``locations`` and
    ``path`` where known); ``cause`` is the domain error a rule raised, the :class:`Failure`
    that stopped the request, or ``None``.
    """

    error: dict[str, Any]
    cause: DomainError | Failure | None
    field: str | None = None
    """The schema's name of the field that failed (an alias is not it), when known."""


@dataclass(frozen=True)
class GraphOutcome:
    """What running a request gave: ``data`` (``None`` when it did not execute) and problems.

    A request that did not execute (bad document, limits, variables) has only problems; how
    that becomes an HTTP answer is the wire layer's choice.
    """

    data: dict[str, Any] | None
    problems: tuple[GraphProblem, ...]

    @property
    def executed(self) -> bool:
        """Whether the request reached execution (it has ``data``)."""
        return self.data is not None
