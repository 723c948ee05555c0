"""What a fuzz run found: cases and statuses per operation, and each distinct failure.

Everything here is already redacted when it is built: a failure's reproduction line goes
through the run's :class:`~patgate.guards.redaction.Redactor` before it is stored, so printing a
report, or writing it as JSON, cannot leak a credential.
"""

from __future__ import annotations

import json
import shlex
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from patgate.guards.redaction import REDACTED, Redactor
from patgate.guards.untrusted_text import one_line, safe_text

__all__ = ["FuzzFailure", "FuzzReport", "OperationTally", "curl_line"]

MAX_SHOWN_BODY = 2000
"""Characters of a request body a reproduction line shows; longer bodies are cut."""
_CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})
# Headers every client adds on its own; they only make a reproduction line harder to read.
_ROUTINE_HEADERS = frozenset(
    {"user-agent", "accept", "accept-encoding", "connection", "content-length"}
    | {"x-schemathesis-testcaseid"}
)


def curl_line(
    method: str,
    url: str,
    headers: Iterable[tuple[str, str]],
    body: bytes | str | None,
    redactor: Redactor,
) -> str:
    """A curl command that repeats a request, with every credential replaced by a marker."""
    parts = ["curl", "-X", method.upper()]
    for name, value in headers:
        if name.lower() in _ROUTINE_HEADERS:
            continue
        shown = REDACTED if name.lower() in _CREDENTIAL_HEADERS else value
        parts += ["-H", f"{name}: {shown}"]
    if body:
        text = body.decode("utf-8", "backslashreplace") if isinstance(body, bytes) else body
        if len(text) > MAX_SHOWN_BODY:
            text = f"{text[:MAX_SHOWN_BODY]}...[{len(text)} characters in all]"
        parts += ["--data-binary", text]
    parts.append(url)
    return redactor.redact(shlex.join(parts))


@dataclass(frozen=True)
class FuzzFailure:
    """One distinct problem: the operation, the check that saw it, and how to repeat it."""

    operation: str
    check: str
    """``server_error``, ``status_code_conformance``, ``graphql_envelope``, ``traceback``, ..."""
    message: str
    status: int | None
    reproduce: str
    """A curl line, redacted."""
    occurrences: int = 1

    def key(self) -> tuple[str, str, int | None]:
        """What makes two failures the same one."""
        return (self.operation, self.check, self.status)


@dataclass
class OperationTally:
    """The cases sent to one operation and the statuses they got."""

    operation: str
    cases: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    not_checked: str | None = None
    """Why the operation was not fuzzed (``writes need --allow-writes``), or ``None``."""

    def count(self, status: int) -> None:
        """Record one answered case."""
        self.cases += 1
        self.statuses[status] += 1


@dataclass
class FuzzReport:
    """The outcome of one fuzz run."""

    target: str
    seed: int
    max_examples: int
    tallies: dict[str, OperationTally] = field(default_factory=dict)
    failures: list[FuzzFailure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No 5xx, no schema violation, no leak: the run passes."""
        return not self.failures

    @property
    def cases(self) -> int:
        """Requests sent and answered, over all operations."""
        return sum(tally.cases for tally in self.tallies.values())

    def statuses(self) -> Counter[int]:
        """Every status seen, over all operations."""
        total: Counter[int] = Counter()
        for tally in self.tallies.values():
            total.update(tally.statuses)
        return total

    def tally(self, operation: str) -> OperationTally:
        """The tally of ``operation``, created on first use."""
        return self.tallies.setdefault(operation, OperationTally(operation))

    def add_failure(self, failure: FuzzFailure) -> None:
        """Keep ``failure``, or count it again when the same one was already seen."""
        for index, known in enumerate(self.failures):
            if known.key() == failure.key():
                self.failures[index] = FuzzFailure(
                    known.operation,
                    known.check,
                    known.message,
                    known.status,
                    known.reproduce,
                    known.occurrences + 1,
                )
                return
        self.failures.append(failure)

    def render(self) -> str:
        """The summary a person reads: per operation, then failures with curl lines."""
        lines = [
            f"patgate fuzz: {self.target} (seed {self.seed}, "
            f"{self.max_examples} examples per operation and mode)"
        ]
        width = max((len(name) for name in self.tallies), default=0)
        for name, tally in self.tallies.items():
            if tally.not_checked is not None:
                lines.append(f"  {name:<{width}}  not checked: {tally.not_checked}")
                continue
            seen = " ".join(f"{status}x{n}" for status, n in sorted(tally.statuses.items()))
            lines.append(f"  {name:<{width}}  {tally.cases:>5} cases  {seen}")
        lines += [f"  note: {one_line(note)}" for note in self.notes]
        for failure in self.failures:
            status = f" [{failure.status}]" if failure.status is not None else ""
            times = f" (x{failure.occurrences})" if failure.occurrences > 1 else ""
            lines.append(
                f"FAIL {one_line(failure.operation)}: {one_line(failure.check)}{status}{times}"
            )
            # Fuzzed input and the target's answers are full of control characters and may
            # hold workflow commands: escaped, never raw (patgate.guards.untrusted_text).
            lines += [f"    {line}" for line in safe_text(failure.message).split("\n")[:8]]
            lines.append(f"    reproduce: {one_line(failure.reproduce)}")
        verdict = "passed" if self.ok else f"{len(self.failures)} distinct failure(s)"
        statuses = ", ".join(f"{s}: {n}" for s, n in sorted(self.statuses().items()))
        lines.append(f"{self.cases} cases ({statuses or 'none'}); {verdict}")
        if not self.ok:
            lines.append(f"repeat with --seed {self.seed} --max-examples {self.max_examples}")
        return "\n".join(lines)

    def as_data(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "target": self.target,
            "seed": self.seed,
            "max_examples": self.max_examples,
            "ok": self.ok,
            "cases": self.cases,
            "operations": {
                name: {
                    "cases": tally.cases,
                    "statuses": _string_keys(tally.statuses),
                    "not_checked": tally.not_checked,
                }
                for name, tally in self.tallies.items()
            },
            "failures": [
                {
                    "operation": f.operation,
                    "check": f.check,
                    "status": f.status,
                    "message": f.message,
                    "reproduce": f.reproduce,
                    "occurrences": f.occurrences,
                }
                for f in self.failures
            ],
            "notes": list(self.notes),
        }

    def to_json(self) -> str:
        """:meth:`as_data` as indented JSON text."""
        return json.dumps(self.as_data(), indent=2)


def _string_keys(counts: Mapping[int, int]) -> dict[str, int]:
    return {str(status): n for status, n in sorted(counts.items())}
