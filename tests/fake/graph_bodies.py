"""Run a GraphQL request and see its answer as the wire layer shapes it.

The executor returns a neutral result (data and problems with their causes); the codes and
the body are the wire layer's. Tests that assert on bodies read them through this helper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from patgate.fake import graph_executor
from patgate.wire.graph_endpoint import graph_answer


@dataclass(frozen=True)
class Answered:
    """The body the wire layer would send, and whether the request executed."""

    body: dict[str, Any]
    executed: bool
    status: int


def execute_graph_request(*args: Any, **kwargs: Any) -> Answered:
    """:func:`patgate.fake.graph_executor.execute_graph_request`, answered as on the wire."""
    outcome = graph_executor.execute_graph_request(*args, **kwargs)
    status, body = graph_answer(outcome)
    return Answered(body, outcome.executed, status)
