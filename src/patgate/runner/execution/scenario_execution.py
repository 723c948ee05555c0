"""Running one scenario: its steps in order, then its cleanup, whatever happened.

A failed gate expectation stops the steps (later steps rely on earlier ones); advisory
failures are recorded and the steps go on. Cleanup steps always run; one that refers to a
value never captured is left out. Every create and delete of a token goes through the run's
:class:`~patgate.runner.custody.custodian.Custodian` (the ledger): a delete of an id the run did not
create is refused and reported, never sent. Whatever this scenario created and its cleanup
did not delete is deleted at the end as a safety net.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from patgate.basics.levels import Level
from patgate.checks import CheckCall, run_check
from patgate.errors import (
    CheckFailure,
    CustodyError,
    PatgateError,
    RequestFailed,
    UnexpectedAnswer,
)
from patgate.guards.redaction import REDACTED
from patgate.runner.connection.answers import describe
from patgate.runner.context import RunContext
from patgate.runner.custody.custodian import PAT_CAP, refused_create
from patgate.runner.execution.step_senders import Sending, WaitTooLong, send_step
from patgate.runner.model import ControlResult, Observed, StepResult, WaitResult
from patgate.runner.results.events import Exchange, Failure, StepTime
from patgate.scenario.catalogue import Catalogue
from patgate.scenario.expressions import ExpressionError, evaluate, substitute
from patgate.scenario.model import Expectation, GraphqlCall, Scenario, Step
from patgate.scenario.paths import PathError, PathMissing, resolve_path

__all__ = ["MAX_ITERATIONS", "ScenarioExecution"]

_REVEAL_RULE = "PAT-SINGLE-REVEAL"
_RATE_LIMITED = (
    "{label}: the target answered 429 (too many requests) after the waits the run allows "
    "(--retry-budget, --max-retry-wait); its rate limits are not documented, so the rule "
    "was not checked"
)
_CAP_TAKEN = (
    "{label}: the create was refused while its principal held {held} tokens, the cap of "
    "{cap}: a token made outside this scenario took the slot the run had counted on "
    "(patgate never deletes a token it did not create), so the rule was not checked"
)
_SHOWN = 400
"""Characters of a failure's field that events carry."""


MAX_ITERATIONS = 1000
"""The most times one step runs (``repeat``, ``for_each``): a count or a list taken from an
answer cannot make a run send requests without end."""

_UNREADABLE = (
    TypeError,
    ValueError,
    KeyError,
    IndexError,
    AttributeError,
    RecursionError,
    OverflowError,
)
"""What a check over an answer of an unexpected shape may raise besides its failure."""


class _Abort(Exception):
    """A gate failure: the remaining steps are not run."""


def _asks_for_429(step: Step) -> bool:
    """Whether the step expects a 429 by name (a scenario about the target's own limit)."""
    for expectation in step.expect:
        if expectation.check != "status":
            continue
        wanted = expectation.argument
        if "429" in {str(value) for value in (wanted if isinstance(wanted, list) else [wanted])}:
            return True
    return False


def _expects_a_create(step: Step) -> bool:
    """Whether the step creates a token and expects it made (``ok: true``)."""
    request = step.request
    return (
        isinstance(request, GraphqlCall)
        and request.operation == "create_token"
        and any(e.check == "ok" and e.argument is True for e in step.expect)
    )


class _Halt(Exception):
    """The run was interrupted: the remaining steps are not run (the cleanup is)."""


class _Skip(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class _Unset(Exception):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"{name} was never captured")


Lookup = Callable[[str], Any]


class ScenarioExecution:
    """The state of one scenario while it runs; read ``failures``, ``completed`` and
    ``skip_reason`` once :meth:`run` returns."""

    def __init__(self, context: RunContext, scenario: Scenario, catalogue: Catalogue) -> None:
        self.context = context
        self.scenario = scenario
        self.catalogue = catalogue
        self.captures: dict[str, Any] = {name: [] for name in scenario.appends}
        self.failures: list[Failure] = []
        self.names: list[str] = []
        """Names of the tokens this scenario set out to create (its share of the ledger)."""
        self.completed = False
        self.skip_reason = ""
        self.cut = False
        """The run was halted (interrupted) before this scenario's steps all ran."""
        self.held: set[str] = set()
        """Rules with an expectation that was checked and held (credited even when a later
        step fails)."""
        self.step_times: list[StepTime] = []
        """Each step that ran, in order, with its time."""
        self._line = 0
        self._answer: Observed | None = None
        """The step being run and its answer, for the failures it leads to."""

    def run(self) -> None:
        """Run the steps, then the cleanup, then delete any token left behind."""
        try:
            for step in self.scenario.steps:
                self._step(step, cleanup=False)
            self.completed = True
        except _Abort:
            pass
        except _Halt:
            self.cut = True
        except _Skip as skip:
            self.skip_reason = skip.reason
        finally:
            for step in self.scenario.cleanup:
                try:
                    self._step(step, cleanup=True)
                except (_Abort, _Skip):
                    continue
            if self.names:
                self.context.custodian.sweep(self.names)

    # -- steps ----------------------------------------------------------------------------------

    def _iterations(self, step: Step, lookup: Lookup) -> Iterator[dict[str, Any]]:
        if step.repeat is not None:
            count = evaluate(step.repeat, lookup)
            if not isinstance(count, int) or isinstance(count, bool):
                raise ExpressionError(
                    f"repeat: {step.repeat!r} is {describe(count)}, not a whole number"
                )
            if count > MAX_ITERATIONS:
                raise ExpressionError(
                    f"repeat: {step.repeat!r} is {describe(count)}, more than the "
                    f"{MAX_ITERATIONS} times a step may run"
                )
            for index in range(max(count, 0)):
                yield {"index": index}
        elif step.for_each is not None:
            items = lookup(step.for_each)
            if not isinstance(items, list):
                raise ExpressionError(f"for_each: {step.for_each} is not a list")
            if len(items) > MAX_ITERATIONS:
                # A list captured from an answer may be as long as the answer allows.
                raise ExpressionError(
                    f"for_each: {step.for_each} holds {len(items)} items, more than the "
                    f"{MAX_ITERATIONS} times a step may run"
                )
            for index, item in enumerate(list(items)):
                yield {"index": index, "item": item}
        else:
            yield {}

    def _step(self, step: Step, *, cleanup: bool) -> None:
        started = time.perf_counter()
        try:
            self._run_step(step, cleanup=cleanup)
        finally:
            spent = time.perf_counter() - started
            self.step_times.append(StepTime(step.name, step.line, spent, cleanup))

    def _run_step(self, step: Step, *, cleanup: bool) -> None:
        self._line, self._answer = step.line, None
        base = self._lookup({})
        try:
            if step.assume is not None and not self._assumed(step.assume, base):
                if cleanup:
                    return
                raise _Skip(step.assume_reason)
            iterations = list(self._iterations(step, base))
        except _Unset as unset:
            if cleanup:
                return
            self._fail(step.rule, step.name, f"{unset.name} was never captured")
            raise _Abort from None
        except ExpressionError as error:
            self._fail(step.rule, step.name, str(error))
            raise _Abort from None
        for loop in iterations:
            if not cleanup and self.context.halted:
                raise _Halt
            label = step.name if not loop else f"{step.name} (#{loop['index'] + 1})"
            names = {
                "new_name": self.context.new_name(),
                "random_pat": self.context.random_pat(),
                "missing_id": self.context.missing_id(),
                **loop,
            }
            lookup = self._lookup(names)
            try:
                result = self._perform(step, lookup, cleanup=cleanup)
            except _Unset as unset:
                if cleanup:
                    return
                self._fail(step.rule, label, f"{unset.name} was never captured")
                raise _Abort from None
            except (ExpressionError, RequestFailed, CustodyError, UnexpectedAnswer) as error:
                self._fail(step.rule, label, str(error))
                if cleanup:
                    continue
                raise _Abort from None
            except (_Skip, _Abort, _Halt, PatgateError):
                raise  # patgate's own errors end the run as documented (exit 2, 3)
            except Exception as error:  # the last-resort net: a bug, never a traceback here
                self._fail(step.rule, label, self.context.note_internal_error(error))
                if cleanup:
                    continue
                raise _Abort from None
            if result is None:
                continue  # a cleanup delete of what is already gone
            try:
                passed = self._inspect(step, label, result, lookup, cleanup=cleanup)
            except (PatgateError, _Skip):
                raise
            except Exception as error:  # the last-resort net, as above
                self._fail(step.rule, label, self.context.note_internal_error(error))
                passed = False
            if not passed and not cleanup:
                raise _Abort

    @staticmethod
    def _assumed(assume: str, lookup: Lookup) -> bool:
        """Whether a precondition holds; one naming a value never captured (an optional
        capture that found nothing) does not."""
        try:
            return bool(evaluate(assume, lookup))
        except _Unset:
            return False

    def _lookup(self, names: Mapping[str, Any]) -> Lookup:
        def lookup(name: str) -> Any:
            if name in names:
                return names[name]
            if name in self.captures:
                return self.captures[name]
            if name == "run_id":
                return self.context.run_id
            value = self.context.key(name)
            if value is None:
                raise _Unset(name)
            return value

        return lookup

    # -- requests -------------------------------------------------------------------------------

    def _perform(self, step: Step, lookup: Lookup, *, cleanup: bool = False) -> StepResult | None:
        headers: dict[str, str] = {}
        bearer = substitute(step.bearer, lookup) if step.bearer is not None else None
        if bearer:
            headers["Authorization"] = f"Bearer {bearer}"
        headers.update({k: str(v) for k, v in substitute(dict(step.headers), lookup).items()})
        basic = tuple(str(v) for v in substitute(list(step.basic), lookup)) if step.basic else None
        sending = Sending(lookup, headers, bearer, basic, cleanup)  # type: ignore[arg-type]
        try:
            return send_step(self, step.kind, step.request, sending)
        except WaitTooLong as too_long:
            raise _Skip(too_long.reason) from None

    # -- answers --------------------------------------------------------------------------------

    def _held_at_refusal(
        self, step: Step, result: StepResult, lookup: Lookup, *, cleanup: bool
    ) -> int | None:
        """The tokens the creator lists after a create refused at the cap, when the step
        expected it made; ``None`` otherwise (not a create, not refused, below the cap)."""
        if cleanup or not isinstance(result, Observed) or not _expects_a_create(step):
            return None
        if not refused_create(result) or step.bearer is None:
            return None
        try:
            bearer = substitute(step.bearer, lookup)
        except _Unset:
            return None
        listed = self.context.custodian.latest_ids(bearer if isinstance(bearer, str) else None)
        return len(listed) if listed is not None and len(listed) >= PAT_CAP else None

    def _inspect(
        self, step: Step, label: str, result: StepResult, lookup: Lookup, *, cleanup: bool
    ) -> bool:
        """Check and capture; ``False`` when a gate failure should stop the steps. A 429
        that still stands after the run's retries is no answer to the step's question: the
        scenario stops, not checked, with the reason (a 4xx would pass ``error: true``)."""
        before = len(self.failures)
        observed = result if isinstance(result, Observed) else result.as_answer()
        self._answer = result if isinstance(result, Observed) else None
        if isinstance(result, Observed):
            self._look_for_revealed_tokens(result, label)
        self._skip_an_unanswered_question(step, label, result, lookup, cleanup=cleanup)
        self._learn(result, label)
        if isinstance(result, ControlResult) and not result.ok and not step.expect:
            self._fail(step.rule, label, f"the control action failed: {result.summary()}")
        for expectation in step.expect:
            self._check(expectation, label, observed, lookup)
        self._capture(step, label, result, lookup, failed_already=len(self.failures) > before)
        return not any(f.level is Level.GATE for f in self.failures[before:])

    def _look_for_revealed_tokens(self, result: Observed, label: str) -> None:
        """Fail PAT-SINGLE-REVEAL when the answer holds a full token value the run knows."""
        origins = self.context.revealed.found_in(result)
        if origins:
            self._fail(
                _REVEAL_RULE,
                label,
                "a full token value appears in a response after its creation",
                expected="no full token value",
                actual=", ".join(origins),
            )

    def _skip_an_unanswered_question(
        self, step: Step, label: str, result: StepResult, lookup: Lookup, *, cleanup: bool
    ) -> None:
        """Skip the scenario, not checked, when the answer is no answer to the step's
        question: a 429 that stands, or a create refused by a cap the run's own tokens hold."""
        if (
            isinstance(result, Observed)
            and result.status == 429
            and not cleanup
            and not _asks_for_429(step)
        ):
            # What this step would have checked was not: an earlier step's check of the same
            # rule does not make it passed.
            self.held -= {expectation.rule for expectation in step.expect}
            raise _Skip(_RATE_LIMITED.format(label=label))
        held = self._held_at_refusal(step, result, lookup, cleanup=cleanup)
        if held is not None:
            # The deployment kept its cap: the precondition the step relied on (a free
            # slot) was unmet, which is no verdict on the rule.
            self.held -= {expectation.rule for expectation in step.expect}
            raise _Skip(_CAP_TAKEN.format(label=label, held=held, cap=PAT_CAP))

    def _check(
        self, expectation: Expectation, label: str, observed: Observed, lookup: Lookup
    ) -> None:
        """Run one check of the step on the answer; a failure counts against its rule."""
        try:
            call = CheckCall(
                argument=substitute(expectation.argument, lookup),
                options=substitute(dict(expectation.options), lookup),
                label=expectation.label,
                pat_prefix=self.context.config.pat_prefix,
            )
        except _Unset as unset:
            # An earlier capture failed (under its own rule); this check cannot be made,
            # and that counts against the rule the check names, not the step's.
            self._fail(expectation.rule, label, f"{unset.name} was never captured")
            return
        try:
            run_check(expectation.check, observed, call)
        except CheckFailure as failure:
            self._fail(
                expectation.rule,
                label,
                str(failure),
                expected=_text(failure.expected),
                actual=_text(failure.actual),
            )
        except _UNREADABLE as error:
            # A check reads an answer of any shape; one it cannot read fails the check.
            self._fail(
                expectation.rule,
                label,
                f"the check {expectation.check} cannot read the answer "
                f"({type(error).__name__}: {error})",
                actual=observed.summary(),
            )
        else:
            self.held.add(expectation.rule)

    def _capture(
        self, step: Step, label: str, result: StepResult, lookup: Lookup, *, failed_already: bool
    ) -> None:
        """Keep the step's captures; one that cannot be made fails the step's rule, unless it
        is optional or a check of the step failed already."""
        for capture in step.capture:
            try:
                value = resolve_path(result.body, str(substitute(capture.path, lookup)))
                if capture.count:
                    value = len(value)
            except (PathMissing, PathError, TypeError, _Unset) as error:
                if capture.optional:
                    continue
                if not failed_already:
                    self._fail(
                        step.rule,
                        label,
                        f"cannot capture {capture.name}: {error}",
                        expected=f"a value at {capture.path or '(the body)'}",
                        actual=result.summary(),
                    )
                continue
            if capture.append:
                self.captures.setdefault(capture.name, []).append(value)
            else:
                self.captures[capture.name] = value

    def _learn(self, result: StepResult, label: str) -> None:
        """Remember the full values a create (or a control action) revealed."""
        revealed = self.context.revealed
        if isinstance(result, ControlResult):
            new = revealed.learn(result.text, f"revealed by {self.scenario.id}: {label}")
        elif isinstance(result, WaitResult):
            return
        else:
            try:
                value = resolve_path(result.body, "data.createPersonalAccessToken.token")
            except PathMissing:
                return
            new = [value] if isinstance(value, str) else []
            for item in new:
                revealed.add(item, f"created by {self.scenario.id}: {label}")
        self.context.redactor.register_all(new)

    def _fail(
        self, rule: str, step: str, message: str, *, expected: str = "", actual: str = ""
    ) -> None:
        def clean(text: str) -> str:
            # Redact first: a secret cut in half would no longer match its registered value.
            text = self.context.redact(text)
            return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."

        known = self.catalogue.get(rule)
        self.failures.append(
            Failure(
                rule,
                known.level if known is not None else Level.GATE,
                clean(step),
                clean(message),
                clean(expected),
                clean(actual),
                self._line,
                self._exchange(),
                known.source.cite() if known is not None and known.source is not None else "",
            )
        )

    def _exchange(self) -> Exchange | None:
        """The current step's request and answer, redacted by value and by header name."""
        answer = self._answer
        if answer is None or answer.sent is None:
            return None
        redact = self.context.redact

        def fields(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
            return tuple(
                (name, _credential(value) if name.lower() in _CREDENTIALS else redact(value))
                for name, value in pairs
            )

        sent = answer.sent
        return Exchange(
            sent.method,
            redact(sent.url),
            fields(sent.headers),
            redact(sent.body)[:_BODY_SHOWN],
            answer.status,
            fields(answer.headers.items()),
            redact(answer.text)[:_BODY_SHOWN],
        )


_CREDENTIALS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie"})
_BODY_SHOWN = 4000
"""Characters of a body a failure's exchange keeps."""


def _credential(value: str) -> str:
    """A credential header's value: its scheme kept, the rest replaced."""
    scheme, space, _rest = value.strip().partition(" ")
    return f"{scheme} {REDACTED}" if space and scheme.isalpha() else REDACTED


def _text(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)
