"""The other half of the self-test: a deployment that differs from the fake only where the
spec is silent (status codes of errors, error bodies, the delete's result, the mask's width)
passes every gate rule. Advisory rules may warn; nothing may fail the run or crash it."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

import pytest

from patgate.harness import Fake
from patgate.resources import scenarios_dir
from patgate.runner import FakeTarget, RunOptions, run
from patgate.runner.events import Outcome, RunFinished
from patgate.scenario import Scenario, load_scenarios
from patgate.wire.messages import WireRequest, WireResponse

from .faults import Wrap, rewrite

_JSON = (("content-type", "application/json"),)


@functools.lru_cache(maxsize=1)
def _builtin() -> tuple[Scenario, ...]:
    return load_scenarios([scenarios_dir()])


@dataclass(frozen=True)
class Variant:
    """A correct deployment that answers differently where the spec leaves it open."""

    name: str
    wrap_app: Wrap


def _graphql_errors_answer_400(request: WireRequest, response: WireResponse, body: Any) -> Any:
    if response.status == 200 and body.get("errors"):
        return WireResponse(400, response.headers, json.dumps(body).encode())
    return body


def _unauthenticated_in_the_body(request: WireRequest, response: WireResponse, body: Any) -> Any:
    if response.status != 401:
        return body
    refusal = {
        "data": None,
        "errors": [{"message": "not signed in", "extensions": {"code": "UNAUTHENTICATED"}}],
    }
    return WireResponse(200, _JSON, json.dumps(refusal).encode())


def _every_refusal_403(request: WireRequest, response: WireResponse, body: Any) -> Any:
    if response.status == 401:
        return WireResponse(403, _JSON, response.body)
    return body


def _refused_delete_is_false(request: WireRequest, response: WireResponse, body: Any) -> Any:
    data = body.get("data")
    if isinstance(data, dict) and "deletePersonalAccessToken" in data and body.get("errors"):
        return {"data": {"deletePersonalAccessToken": False}}
    return body


def _narrow_mask(request: WireRequest, response: WireResponse, body: Any) -> Any:
    viewer = (body.get("data") or {}).get("viewer")
    if isinstance(viewer, dict):
        for entry in viewer.get("personalAccessTokens") or []:
            # The prefix and 4 characters of the id segment, then 8 asterisks.
            entry["token"] = entry["token"][: len("amp_pat_") + 4] + "*" * 8
    return body


def _plain_text_token_errors(request: WireRequest, response: WireResponse, body: Any) -> Any:
    if response.status == 400:
        return WireResponse(400, (("content-type", "text/plain"),), b"Bad credentials")
    return body


def _other_token_error_body(request: WireRequest, response: WireResponse, body: Any) -> Any:
    return {"message": "Bad credentials"} if response.status == 400 else body


def _refusals_without_data(request: WireRequest, response: WireResponse, body: Any) -> Any:
    if body.get("errors") and "data" in body:
        return {"errors": body["errors"]}
    return body


VARIANTS = (
    Variant("GraphQL refusals answer HTTP 400", rewrite("/graphql", _graphql_errors_answer_400)),
    Variant(
        "GraphQL without a valid token answers 200 UNAUTHENTICATED",
        rewrite("/graphql", _unauthenticated_in_the_body),
    ),
    Variant("the content API refuses with 403 only", rewrite("/hubs", _every_refusal_403)),
    Variant(
        "a refused delete answers false, without errors",
        rewrite("/graphql", _refused_delete_is_false),
    ),
    Variant("listings show 4 characters and 8 asterisks", rewrite("/graphql", _narrow_mask)),
    Variant(
        "token endpoint errors are plain text", rewrite("/oauth/token", _plain_text_token_errors)
    ),
    Variant(
        "token endpoint errors have another JSON body",
        rewrite("/oauth/token", _other_token_error_body),
    ),
    Variant("GraphQL refusals carry no data key", rewrite("/graphql", _refusals_without_data)),
)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.name)
def test_a_deployment_differing_only_where_the_spec_is_silent_passes_every_gate(
    variant: Variant,
) -> None:
    fake = Fake(wrap_app=variant.wrap_app)
    end = list(run(_builtin(), FakeTarget(fake), RunOptions()))[-1]
    assert isinstance(end, RunFinished)
    failed = {
        (scenario.scenario_id, failure.rule, failure.message)
        for scenario in end.scenarios
        for failure in scenario.failures
        if failure.level == "gate"
    }
    assert failed == set()
    assert {rule.outcome for rule in end.rules if rule.level == "gate"} == {Outcome.PASSED}
    assert end.exit_code == 0
    assert end.tallies.tokens_leaked == 0
