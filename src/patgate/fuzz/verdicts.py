"""The fuzzer's own judgement of one answer, on top of the OpenAPI checks.

Three things hold for every answer of every endpoint: no 5xx, no traceback in the body, and
no credential the run knows echoed back. GraphQL answers also keep the fake's contract
(docs/design.md): an executed request is 200 with a ``data`` key; one that did not execute has no
``data`` key, a non-empty ``errors`` list and a 4xx status. Schemathesis' own GraphQL
server-error check is not used: it counts every in-band error as a server fault, while this
API refuses rules in-band on purpose (``errors[].extensions.code`` with a null field).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from patgate.guards.redaction import Redactor

__all__ = ["Verdict", "answer_verdicts", "graphql_verdicts"]

TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"\n]+\", line [0-9]+")
"""What a Python traceback in a response body looks like."""


@dataclass(frozen=True)
class Verdict:
    """One broken expectation: the check's name and what was seen."""

    check: str
    message: str


def answer_verdicts(status: int, body: bytes, redactor: Redactor) -> list[Verdict]:
    """No 5xx, no traceback and no known credential in the body."""
    found = []
    if status >= 500:
        found.append(Verdict("server_error", f"the server answered {status}"))
    text = body.decode("utf-8", "replace")
    if TRACEBACK.search(text):
        found.append(Verdict("traceback", "the response body holds a Python traceback"))
    if redactor.contains_secret(text):
        found.append(Verdict("secret_echo", "the response body holds a credential of this run"))
    return found


def graphql_verdicts(status: int, body: bytes) -> list[Verdict]:
    """The GraphQL answer keeps the envelope contract (see the module docstring)."""
    if status >= 500:
        return []  # already a server_error; the body says nothing more
    try:
        payload: Any = json.loads(body)
    except ValueError:
        return [Verdict("graphql_envelope", f"the {status} answer is not JSON")]
    if not isinstance(payload, dict):
        return [Verdict("graphql_envelope", f"the {status} answer is not a JSON object")]
    found = []
    errors = payload.get("errors")
    if errors is not None and not _well_formed_errors(errors):
        found.append(
            Verdict("graphql_envelope", "errors is not a list of objects with a string message")
        )
    if "data" in payload:
        if status != 200:
            found.append(Verdict("graphql_envelope", f"an executed request answered {status}"))
    else:
        if not errors:
            found.append(Verdict("graphql_envelope", "no data key and no errors"))
        if not 400 <= status < 500:
            found.append(Verdict("graphql_envelope", f"a request that did not run got {status}"))
    return found


def _well_formed_errors(errors: Any) -> bool:
    if not isinstance(errors, list) or not errors:
        return False
    for error in errors:
        if not isinstance(error, dict) or not isinstance(error.get("message"), str):
            return False
        extensions = error.get("extensions")
        if extensions is not None and not isinstance(extensions, dict):
            return False
        if isinstance(extensions, dict) and not isinstance(extensions.get("code", ""), str):
            return False
    return True
