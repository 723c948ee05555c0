"""Sending one fuzzed request and judging the answer: the part every pass shares.

A :class:`Recorder` owns the run's HTTP session, timeouts, redactor and report. It turns a
connection error before any answer into :class:`~patgate.errors.TargetUnreachable` (exit
code 3), and one after answers into a ``no_answer`` failure: a server that stops answering
in the middle of a fuzz run has fallen over. An answer its session refuses to read (over the
size cap, or compressed twice: :mod:`patgate.fuzz.bounded_session`) fails a set-up call with
:class:`~patgate.errors.RequestFailed` naming why.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from patgate.errors import RequestFailed, TargetUnreachable
from patgate.fuzz.report import FuzzFailure, FuzzReport, curl_line
from patgate.fuzz.verdicts import Verdict, answer_verdicts, graphql_verdicts
from patgate.guards.redaction import Redactor

if TYPE_CHECKING:
    import requests

__all__ = ["Answer", "Recorder"]


@dataclass(frozen=True)
class Answer:
    """A response as the fuzzer keeps it."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class Recorder:
    """Sends requests for the passes and records cases, statuses and failures."""

    def __init__(
        self,
        session: requests.Session,
        report: FuzzReport,
        redactor: Redactor,
        *,
        timeout: tuple[float, float],
    ) -> None:
        self.session = session
        self.report = report
        self.redactor = redactor
        self.timeout = timeout

    def send(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        json_body: Any = None,
        form: Mapping[str, str] | None = None,
    ) -> Answer:
        """One plain request (set-up and clean-up calls); raises when nothing answers."""
        import requests

        from patgate.fuzz.bounded_session import AnswerUnread

        try:
            response = self.session.request(
                method,
                url,
                headers=dict(headers or {}),
                json=json_body,
                data=dict(form) if form is not None else None,
                timeout=self.timeout,
                allow_redirects=False,
            )
        except AnswerUnread as refused:
            raise RequestFailed(f"{method} {self.redactor.redact(url)}: {refused}") from None
        except requests.RequestException as error:
            raise TargetUnreachable(
                f"{self.redactor.redact(url)} does not answer: {type(error).__name__}"
            ) from None
        return Answer(response.status_code, dict(response.headers), response.content)

    def unreachable(self, operation: str, error: BaseException, reproduce: str) -> None:
        """A request got no answer: unreachable at first, a ``no_answer`` failure later."""
        if self.report.cases == 0:
            raise TargetUnreachable(
                f"the target does not answer ({type(error).__name__}): {reproduce}"
            ) from None
        self.fail(operation, "no_answer", f"no answer: {type(error).__name__}", None, reproduce)

    def judge(
        self, operation: str, status: int, body: bytes, *, graphql: bool, reproduce: str
    ) -> list[Verdict]:
        """Count an answered case and record what :mod:`~patgate.fuzz.verdicts` finds."""
        self.report.tally(operation).count(status)
        verdicts = answer_verdicts(status, body, self.redactor)
        if graphql:
            verdicts += graphql_verdicts(status, body)
        for verdict in verdicts:
            self.fail(operation, verdict.check, verdict.message, status, reproduce)
        return verdicts

    def fail(
        self, operation: str, check: str, message: str, status: int | None, reproduce: str
    ) -> None:
        """Record a failure; its message and reproduction line are redacted here."""
        self.report.add_failure(
            FuzzFailure(
                operation,
                check,
                self.redactor.redact(message),
                status,
                self.redactor.redact(reproduce),
            )
        )

    def reproduction(
        self,
        method: str,
        url: str,
        headers: Iterable[tuple[str, str]],
        body: bytes | str | None,
    ) -> str:
        """The redacted curl line of a request."""
        return curl_line(method, url, headers, body, self.redactor)
