"""Property-based fuzzing of a deployment: ``specs/openapi.yaml`` and the GraphQL schema.

Schemathesis turns each operation into a Hypothesis strategy of requests (valid ones, and
with ``negative`` mode invalid ones); every answer is then judged by the OpenAPI checks
(status, content type, headers, body schema) and by :mod:`patgate.fuzz.verdicts` (no 5xx,
no traceback, no credential echoed, the GraphQL envelope). Failures are collected, not
raised, so one run reports every distinct problem with a curl line that repeats it; an
exception the embedded fake raises on a case is one of them (``fake_error``), as a 5xx of a
served fake would be.

Passes: the token endpoint as generated and with the target's client credentials as HTTP
Basic; the hubs listing as generated and with a valid bearer; every GraphQL field with a
valid bearer; and the PAT lifecycle (:mod:`patgate.fuzz.lifecycle`). On a live target the
GraphQL mutations and the lifecycle need ``allow_writes``; the token endpoint and the hubs
listing create nothing that lasts, so they are always fuzzed.

Schemathesis and Hypothesis are the optional ``fuzz`` extra; this module imports them at
the top, so import it only when fuzzing (``patgate.fuzz`` does that lazily).
"""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

# The `fuzz` extra; when it is missing mypy sees these modules as Any.
import hypothesis  # type: ignore[import-not-found, unused-ignore]
import requests
import schemathesis  # type: ignore[import-not-found, unused-ignore]

from patgate.basics.observed import Observed
from patgate.basics.resources import specs_dir
from patgate.errors import TargetUnreachable, UnexpectedAnswer
from patgate.fuzz.bounded_session import AnswerUnread, bounded_session
from patgate.fuzz.lifecycle import delete_created, run_lifecycle
from patgate.fuzz.recorder import Recorder
from patgate.fuzz.report import FuzzReport
from patgate.runner.connection.exchange import DEFAULT_MAX_RESPONSE_BYTES, NetworkPolicy

if TYPE_CHECKING:
    from patgate.harness import Fake
    from patgate.runner.connection.config import Target, TargetConfig
    from patgate.runner.engine import ScenarioRunner

__all__ = ["OPENAPI_CHECKS", "FuzzOptions", "Fuzzer", "fuzz_fake", "fuzz_target"]

OPENAPI_CHECKS = (
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
)
"""The schemathesis checks every REST answer must pass: "conforms to specs/openapi.yaml".

A 5xx is judged by :func:`~patgate.fuzz.verdicts.answer_verdicts` for every endpoint alike.
"""
GRAPHQL_CHECKS = ("response_schema_conformance",)
"""Nulls in non-null fields and malformed JSON; the envelope is judged by our verdicts."""
EMBEDDED_ORIGIN = "https://fake.patgate.invalid"
"""Where the embedded fake answers: a name that never resolves, so nothing leaves the host."""


@dataclass(frozen=True)
class FuzzOptions:
    """How much to fuzz and what is allowed."""

    max_examples: int = 25
    """Generated cases per operation, per pass and per generation mode."""
    seed: int | None = None
    """Hypothesis' seed; a random one (printed in the report) when ``None``."""
    allow_writes: bool = False
    """On a live target, also fuzz the GraphQL mutations and the PAT lifecycle."""
    connect_timeout: float = 5.0
    """Seconds to wait for a connection."""
    read_timeout: float = 30.0
    """Seconds to wait for an answer."""
    ledger_path: Path | None = None
    """Where the ledger of every token the run creates is appended (``None``: memory)."""
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    """An answer longer than this (decoded), or compressed twice, is an ``unread_answer``
    failure."""


@dataclass(frozen=True)
class _Pass:
    label: str
    operation: Any
    base_url: str
    headers: dict[str, str] | None
    graphql: bool


def _json_member(body: bytes, name: str) -> Any:
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    return payload.get(name) if isinstance(payload, dict) else None


def _basic(client_id: str, client_secret: str) -> str:
    # RFC 6749 2.3.1: each part is form-urlencoded before base64.
    raw = f"{quote(client_id, safe='')}:{quote(client_secret, safe='')}".encode()
    return "Basic " + base64.b64encode(raw).decode("ascii")


class Fuzzer:
    """One fuzz run against one target; :meth:`run` returns the :class:`FuzzReport`."""

    def __init__(
        self,
        runner: ScenarioRunner,
        options: FuzzOptions,
        *,
        display: str,
        session: requests.Session | None = None,
    ) -> None:
        self.runner = runner
        self.context = runner.context
        config = self.context.config
        self.config = config
        self.options = options
        self.live = self.context.target.live
        seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
        self.report = FuzzReport(display, seed, options.max_examples)
        self.redactor = self.context.redactor
        self.recorder = Recorder(
            bounded_session(
                session if session is not None else requests.Session(),
                options.max_response_bytes,
            ),
            self.report,
            self.redactor,
            timeout=(options.connect_timeout, options.read_timeout),
        )
        self.documents = self.context.documents
        self._sc_config = schemathesis.Config()

    @property
    def writes(self) -> bool:
        """Whether GraphQL mutations may be sent."""
        return not self.live or self.options.allow_writes

    def run(self) -> FuzzReport:
        """Every pass, in order; the report of what was seen."""
        bearer = self._bearer()
        for fuzz_pass in self._openapi_passes(bearer):
            self._drive(fuzz_pass)
        graphql_url = self.config.text("graphql_url")
        if graphql_url and bearer:
            # Learn the delete's result shape first: generated creates may need cleaning up.
            try:
                self.documents.discover(self._introspect(graphql_url, bearer))
            except UnexpectedAnswer as error:
                # The built-in document shapes stay; the note says why none was learned.
                self.report.notes.append(self.redactor.redact(str(error)))
            for fuzz_pass in self._graphql_passes(graphql_url, bearer):
                self._drive(fuzz_pass)
            self._lifecycle(graphql_url, bearer)
        elif graphql_url:
            self.report.tally("GraphQL").not_checked = "needs admin_token or client credentials"
        return self.report

    # -- set-up --------------------------------------------------------------------------------

    def _introspect(self, graphql_url: str, bearer: str) -> Callable[[str], Observed]:
        headers = {"Authorization": f"Bearer {bearer}"}

        def send(query: str) -> Observed:
            answer = self.recorder.send(
                "POST", graphql_url, headers=headers, json_body={"query": query}
            )
            return Observed(answer.status, answer.body.decode("utf-8", "replace"))

        return send

    def _bearer(self) -> str | None:
        """A valid bearer: the admin's token, else a client-credential token."""
        admin = self.config.text("admin_token")
        if admin:
            return admin
        auth_url, client_id = self.config.text("auth_url"), self.config.text("client_id")
        client_secret = self.config.text("client_secret")
        if not (auth_url and client_id and client_secret):
            return None
        answer = self.recorder.send(
            "POST",
            auth_url + "/oauth/token",
            headers={"Authorization": _basic(client_id, client_secret)},
            form={"grant_type": "client_credentials"},
        )
        token = _json_member(answer.body, "access_token") if answer.status == 200 else None
        if not isinstance(token, str):
            self.report.notes.append(f"no client-credential token (HTTP {answer.status})")
            return None
        self.redactor.register(token)
        return token

    def _openapi_passes(self, bearer: str | None) -> list[_Pass]:
        schema = schemathesis.openapi.from_path(
            specs_dir() / "openapi.yaml", config=self._sc_config
        )
        auth_url, base_url = self.config.text("auth_url"), self.config.text("base_url")
        client_id, client_secret = self.config.text("client_id"), self.config.text("client_secret")
        passes = []
        for operation in self._operations(schema):
            label = f"{operation.method.upper()} {operation.path}"
            token_endpoint = operation.path == "/oauth/token"
            base = auth_url if token_endpoint else base_url
            if not base:
                needed = "auth_url" if token_endpoint else "base_url"
                self.report.tally(label).not_checked = f"needs {needed}"
                continue
            passes.append(_Pass(label, operation, base, None, graphql=False))
            if token_endpoint and client_id and client_secret:
                basic = {"Authorization": _basic(client_id, client_secret)}
                passes.append(_Pass(label + " +basic", operation, base, basic, graphql=False))
            if not token_endpoint and bearer:
                headers = {"Authorization": f"Bearer {bearer}"}
                passes.append(_Pass(label + " +bearer", operation, base, headers, graphql=False))
        return passes

    def _operations(self, schema: Any) -> list[Any]:
        """The schema's operations; one schemathesis cannot read becomes a note."""
        operations = []
        for result in schema.get_all_operations():
            if hasattr(result, "ok"):
                operations.append(result.ok())
            else:
                self.report.notes.append(f"an operation could not be read: {result.err()}")
        return operations

    def _graphql_schema(self, graphql_url: str, bearer: str) -> Any:
        bundled = specs_dir() / "schema.graphql"
        if not self.live:
            return schemathesis.graphql.from_path(bundled, config=self._sc_config)
        try:
            return schemathesis.graphql.from_url(
                graphql_url,
                config=self._sc_config,
                headers={"Authorization": f"Bearer {bearer}"},
                timeout=self.recorder.timeout,
            )
        except Exception as error:  # introspection may be off: the bundled schema still fuzzes
            self.report.notes.append(
                f"introspection failed ({type(error).__name__}); fuzzed the bundled schema"
            )
            return schemathesis.graphql.from_path(bundled, config=self._sc_config)

    def _graphql_passes(self, graphql_url: str, bearer: str) -> list[_Pass]:
        schema = self._graphql_schema(graphql_url, bearer)
        headers = {"Authorization": f"Bearer {bearer}"}
        passes = []
        for operation in self._operations(schema):
            if operation.label.startswith("Mutation.") and not self.writes:
                self.report.tally(operation.label).not_checked = "writes need --allow-writes"
                continue
            passes.append(_Pass(operation.label, operation, graphql_url, headers, graphql=True))
        return passes

    def _lifecycle(self, graphql_url: str, bearer: str) -> None:
        label = "PAT lifecycle"
        if not self.writes:
            self.report.tally(label).not_checked = "writes need --allow-writes"
            return
        run_lifecycle(
            self.recorder,
            self.context,
            graphql_url,
            bearer,
            label=label,
            organization_id=self.config.text("organization_id"),
            pat=self.config.pat,
            runner=self._hypothesis_runner,
        )

    # -- driving Hypothesis --------------------------------------------------------------------

    def _hypothesis_runner(self, strategy: Any, test: Callable[[Any], None]) -> None:
        """Run ``test`` on ``max_examples`` values of ``strategy``, with the run's seed."""
        from hypothesis import HealthCheck, Phase, Verbosity  # type: ignore[import-not-found, unused-ignore]

        settings = hypothesis.settings(
            max_examples=self.options.max_examples,
            database=None,  # nothing written to .hypothesis/ in the user's folder
            deadline=None,
            derandomize=False,
            phases=(Phase.explicit, Phase.generate),  # failures are recorded, never shrunk
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
        )

        def one_example(value: Any) -> None:
            test(value)

        wrapped = hypothesis.given(value=strategy)(one_example)
        hypothesis.seed(self.report.seed)(settings(wrapped))()

    def _drive(self, fuzz_pass: _Pass) -> None:
        modes = (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE)
        for mode in modes:
            strategy = fuzz_pass.operation.as_strategy(
                generation_mode=mode, headers=fuzz_pass.headers
            )

            def exercise(value: Any, fuzz_pass: _Pass = fuzz_pass) -> None:
                self._exercise(fuzz_pass, value)

            try:
                self._hypothesis_runner(strategy, exercise)
            except TargetUnreachable:
                raise
            except Exception as error:
                # Generation itself gave up (an unsatisfiable schema, say): say so, go on.
                self.report.notes.append(
                    f"{fuzz_pass.label} ({mode}): generation stopped: {type(error).__name__}"
                )

    def _exercise(self, fuzz_pass: _Pass, case: Any) -> None:
        recorder = self.recorder
        try:
            response = case.call(
                base_url=fuzz_pass.base_url,
                session=recorder.session,
                timeout=recorder.timeout,
                allow_redirects=False,
            )
        except AnswerUnread as refused:
            line = recorder.redactor.redact(case.as_curl_command(base_url=fuzz_pass.base_url))
            recorder.fail(fuzz_pass.label, "unread_answer", str(refused), None, line)
            return
        except requests.RequestException as error:
            line = recorder.redactor.redact(case.as_curl_command(base_url=fuzz_pass.base_url))
            recorder.unreachable(fuzz_pass.label, error, line)
            return
        except (schemathesis.errors.SchemathesisError, hypothesis.errors.HypothesisException):
            raise  # generation or serialization: _drive notes it
        except Exception as error:
            if self.live:
                raise
            # The embedded fake answers in this process, so what it raises arrives here; left
            # to _drive it would be a note and the run would pass. It is the fake's 500.
            line = recorder.redactor.redact(case.as_curl_command(base_url=fuzz_pass.base_url))
            message = f"the fake raised {type(error).__name__}: {error}"
            recorder.fail(fuzz_pass.label, "fake_error", message, None, line)
            return
        sent = response.request
        reproduce = recorder.reproduction(
            sent.method or "GET", sent.url or "", sent.headers.items(), sent.body
        )
        recorder.judge(
            fuzz_pass.label,
            response.status_code,
            response.content,
            graphql=fuzz_pass.graphql,
            reproduce=reproduce,
        )
        names = GRAPHQL_CHECKS if fuzz_pass.graphql else OPENAPI_CHECKS
        checks = [getattr(schemathesis.checks, name) for name in names]
        try:
            case.validate_response(response, checks=checks)
        except schemathesis.errors.FailureGroup as group:
            for failure in group.exceptions:
                self._record_check_failure(fuzz_pass, failure, response.status_code, reproduce)
        except AssertionError as failure:
            self._record_check_failure(fuzz_pass, failure, response.status_code, reproduce)
        if fuzz_pass.graphql and fuzz_pass.headers:
            delete_created(
                self.recorder,
                self.context,
                fuzz_pass.base_url,
                fuzz_pass.headers,
                response.content,
                label=fuzz_pass.label,
            )

    def _record_check_failure(
        self, fuzz_pass: _Pass, failure: BaseException, status: int, reproduce: str
    ) -> None:
        names = getattr(failure, "checks", ()) or ("schema",)
        title = getattr(failure, "title", type(failure).__name__)
        message = getattr(failure, "message", str(failure))
        self.recorder.fail(fuzz_pass.label, names[0], f"{title}\n{message}", status, reproduce)


def _fuzz(target: Target, options: FuzzOptions, display: str) -> FuzzReport:
    from patgate.runner.context import RunOptions
    from patgate.runner.session import open_session

    run_options = RunOptions(
        allow_writes=options.allow_writes,
        connect_timeout=options.connect_timeout,
        read_timeout=options.read_timeout,
        ledger_path=options.ledger_path,
        network=NetworkPolicy(max_response_bytes=options.max_response_bytes),
    )
    with open_session(target, run_options) as runner:
        fuzzer = Fuzzer(runner, options, display=display)
        report = fuzzer.run()
        tallies = runner.finish()
    if tallies.left_behind:
        message = (
            f"{tallies.tokens_leaked} token(s) may be left behind, {tallies.deletes_refused} "
            "delete(s) refused; `patgate cleanup` finishes the ledger"
        )
        fuzzer.recorder.fail("PAT lifecycle", "cleanup", message, None, "")
    return report


def fuzz_target(
    config: TargetConfig, options: FuzzOptions, *, display: str | None = None
) -> FuzzReport:
    """Fuzz a live target (read-only unless ``options.allow_writes``)."""
    from patgate.runner.connection.config import LiveTarget

    shown = display or config.text("base_url") or config.text("auth_url") or "live target"
    return _fuzz(LiveTarget(config), options, shown)


def fuzz_fake(options: FuzzOptions, fake: Fake | None = None) -> FuzzReport:
    """Fuzz an in-process fake through requests' interception: no socket is opened.

    ``fake`` defaults to a strict one on :data:`EMBEDDED_ORIGIN`; a given fake is started
    for the run and stopped after it if it was not already active.
    """
    from patgate.runner.connection.fake import FakeTarget

    if fake is None:
        from patgate.harness import Fake
        from patgate.wire.urls import FakeUrls

        fake = Fake(urls=FakeUrls.same_origin(EMBEDDED_ORIGIN), strict=True)
    started = not fake.active
    fake.start()
    try:
        return _fuzz(FakeTarget(fake), options, "embedded fake")
    finally:
        if started:
            fake.stop()
