"""A realistic run as events (passes, a gate failure, an advisory warning, a skip), and helpers."""

from __future__ import annotations

from collections.abc import Iterable

from patgate.reporting import Reporter
from patgate.runner.results.events import (
    Event,
    Failure,
    Outcome,
    RuleResult,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
)

CAP_EXPECTED = "an error with code LIMIT_REACHED, and 5 tokens listed"
CAP_ACTUAL = '{"data": {"createPersonalAccessToken": {"name": "<script>alert(1)</script>"}}}'


def scenario(
    scenario_id: str,
    rule: str,
    outcome: Outcome,
    *,
    failures: tuple[Failure, ...] = (),
    reason: str = "",
    inherent: bool = False,
) -> ScenarioFinished:
    """One finished scenario of the sample run."""
    return ScenarioFinished(
        scenario_id=scenario_id,
        title=f"Checks {rule}",
        rules=(rule,),
        outcome=outcome,
        duration=0.125,
        reason=reason,
        failures=failures,
        source=f"scenarios/{rule.lower()}.yaml:12",
        inherent=inherent,
    )


def run_events(*finished: ScenarioFinished, exit_code: int = 1) -> list[Event]:
    """The whole event sequence of a run of ``finished``, one rule per scenario."""
    counts: dict[str, int] = {}
    for item in finished:
        counts[item.outcome.value] = counts.get(item.outcome.value, 0) + 1
    events: list[Event] = [
        RunStarted(run_id="run-7f3a", target="http://127.0.0.1:8765", scenario_count=len(finished))
    ]
    for item in finished:
        events.append(ScenarioStarted(item.scenario_id, item.title, item.rules))
        events.append(item)
    rules = tuple(
        RuleResult(
            rule_id=item.rules[0],
            title=f"The rule {item.rules[0]}",
            level="advisory" if item.outcome is Outcome.WARNING else "gate",
            outcome=item.outcome,
            scenarios=(item.scenario_id,),
            reason=item.reason,
            inherent=item.inherent,
        )
        for item in finished
    )
    events.append(
        RunFinished(
            run_id="run-7f3a",
            rules=rules,
            scenarios=tuple(finished),
            exit_code=exit_code,
            duration=0.84,
            counts=counts,
        )
    )
    return events


CAP_FAILURE = Failure(
    rule="PAT-CAP",
    level="gate",
    step="create a 6th token",
    message="the 6th create was accepted",
    expected=CAP_EXPECTED,
    actual=CAP_ACTUAL,
)
CACHE_WARNING = Failure(
    rule="TOKEN-OAUTH-RESPONSE",
    level="advisory",
    step="request a token",
    message="Cache-Control lacks no-store",
    expected="Cache-Control: no-store",
    actual="Cache-Control: max-age=60",
)
SAMPLE_SCENARIOS = (
    scenario("token-ok", "TOKEN-OK", Outcome.PASSED),
    scenario("content-pat", "CONTENT-PAT", Outcome.PASSED),
    scenario("pat-cap-sixth", "PAT-CAP", Outcome.FAILED, failures=(CAP_FAILURE,)),
    scenario("token-cache", "TOKEN-OAUTH-RESPONSE", Outcome.WARNING, failures=(CACHE_WARNING,)),
    scenario("pat-approval", "PAT-APPROVAL", Outcome.NOT_CHECKED, reason="needs member_token"),
)


def feed_events(reporter: Reporter, events: Iterable[Event]) -> None:
    """Hand every event to ``reporter``, then close it, as the CLI does."""
    for event in events:
        reporter.handle(event)
    reporter.close()
