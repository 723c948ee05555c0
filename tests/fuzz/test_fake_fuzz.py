"""Fuzzing the in-process fake: a bounded run passes, and each injected fault is caught.

Requests go through requests' interception of a strict fake on an unresolvable host: no
socket is opened. A fuzz test that could not fail would prove nothing, so every check the
run relies on is shown failing against a fake with that one fault.
"""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("schemathesis", reason="needs the fuzz extra: pip install -e '.[fuzz]'")

from patgate.fuzz import FuzzOptions, FuzzReport, fuzz_fake
from patgate.service import api_paths
from patgate.wire.messages import WireRequest, WireResponse
from tests.fuzz.conftest import Fault, broken_fake, faulty_fake, with_json

BUDGET = FuzzOptions(max_examples=20, seed=20231121)
SMALL = FuzzOptions(max_examples=5, seed=7)
HUBS_BEARER = "GET /v2/content/hubs +bearer"
OPERATIONS = {
    "POST /oauth/token",
    "POST /oauth/token +basic",
    "Query.viewer",
    "Mutation.createPersonalAccessToken",
    "Mutation.deletePersonalAccessToken",
    "PAT lifecycle",
    # Every content path, without and with a bearer.
    *(
        f"GET {path.template}{bearer}"
        for path in api_paths.ALL_PATHS
        if path.is_content
        for bearer in ("", " +bearer")
    ),
}


def _checks(report: FuzzReport) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for failure in report.failures:
        found.setdefault(failure.check, set()).add(failure.operation)
    return found


def test_a_bounded_run_against_the_fake_finds_no_5xx_and_no_schema_violation() -> None:
    report = fuzz_fake(BUDGET)
    assert report.ok, report.render()
    assert set(report.tallies) == OPERATIONS
    assert all(tally.not_checked is None and tally.cases > 0 for tally in report.tallies.values())
    # The run reached the success paths and the refusals, not only one of them.
    statuses = report.statuses()
    assert {200, 400, 401} <= set(statuses), statuses
    assert report.tallies["POST /oauth/token +basic"].statuses[200] > 0
    assert report.tallies["GET /v2/content/hubs +bearer"].statuses[200] > 0
    assert report.cases >= 300


def test_the_same_seed_sends_the_same_cases() -> None:
    first, second = fuzz_fake(SMALL), fuzz_fake(SMALL)
    assert first.as_data() == second.as_data()


def _hubs_500(request: WireRequest, response: WireResponse) -> WireResponse:
    if "/v2/content/hubs" in request.url and request.header("authorization"):
        return with_json(response, {"errors": [{"message": "boom"}]}, 500)
    return response


def _hubs_without_page(request: WireRequest, response: WireResponse) -> WireResponse:
    if "/v2/content/hubs" in request.url and response.status == 200:
        body = response.json()
        del body["page"]
        return with_json(response, body)
    return response


def _token_418(request: WireRequest, response: WireResponse) -> WireResponse:
    if request.url.endswith("/oauth/token") and response.status == 400:
        return with_json(response, response.json(), 418)
    return response


def _graphql_traceback(request: WireRequest, response: WireResponse) -> WireResponse:
    if request.url.endswith("/graphql") and response.status == 400:
        message = 'Traceback (most recent call last):\n  File "app.py", line 12, in run'
        return with_json(response, {"errors": [{"message": message}]})
    return response


def _graphql_echoes_the_bearer(request: WireRequest, response: WireResponse) -> WireResponse:
    if request.url.endswith("/graphql") and response.status == 200:
        body = response.json()
        body["extensions"] = {"seen": request.header("authorization")}
        return with_json(response, body)
    return response


def _graphql_refusal_as_200(request: WireRequest, response: WireResponse) -> WireResponse:
    if request.url.endswith("/graphql") and response.status == 400:
        return with_json(response, response.json(), 200)
    return response


FAULTS: list[tuple[str, Fault, str, str]] = [
    ("5xx", _hubs_500, "server_error", HUBS_BEARER),
    ("body-schema", _hubs_without_page, "response_schema_conformance", HUBS_BEARER),
    ("undocumented-status", _token_418, "status_code_conformance", "POST /oauth/token"),
    ("traceback", _graphql_traceback, "traceback", "Query.viewer"),
    ("secret-echo", _graphql_echoes_the_bearer, "secret_echo", "Query.viewer"),
    ("graphql-envelope", _graphql_refusal_as_200, "graphql_envelope", "Query.viewer"),
]


@pytest.mark.parametrize(
    ("fault", "check", "operation"),
    [pytest.param(fault, check, operation, id=name) for name, fault, check, operation in FAULTS],
)
def test_an_injected_fault_fails_the_run(fault: Fault, check: str, operation: str) -> None:
    fake = faulty_fake(fault)
    report = fuzz_fake(SMALL, fake)
    assert not report.ok
    assert operation in _checks(report).get(check, set()), report.render()
    admin_token = fake.world["admin_token"]
    for failure in report.failures:
        assert admin_token not in failure.reproduce
        assert admin_token not in failure.message
        assert failure.reproduce.startswith("curl -X ")
    assert "repeat with --seed 7 --max-examples 5" in report.render()


def test_a_listing_that_shows_the_full_value_is_caught() -> None:
    created: list[str] = []

    def unmask(request: WireRequest, response: WireResponse) -> WireResponse:
        if not request.url.endswith("/graphql") or response.status != 200:
            return response
        text = response.body.decode()
        if "createPersonalAccessToken" in text:
            created.extend(re.findall(r'"token":"(amp_pat_[^"]+)"', text))
        elif created and "personalAccessTokens" in text:
            text = re.sub(r'"token":"amp_pat_[^"]*\*+"', json.dumps(created[-1]), text)
            text = text.replace(json.dumps(created[-1]), f'"token":"{created[-1]}"')
        return WireResponse(response.status, response.headers, text.encode())

    report = fuzz_fake(SMALL, faulty_fake(unmask))
    checks = _checks(report)
    assert "PAT lifecycle" in checks.get("secret_echo", set()), report.render()
    assert "PAT lifecycle" in checks.get("listing_mask", set()), report.render()


def test_an_exception_inside_the_fake_fails_the_run() -> None:
    fake = broken_fake()
    report = fuzz_fake(SMALL, fake)
    assert not report.ok, report.render()
    [failure] = [f for f in report.failures if f.check == "fake_error"]
    assert failure.operation == HUBS_BEARER
    assert "RuntimeError: bug in list_hubs" in failure.message
    assert failure.reproduce.startswith("curl -X GET")
    assert fake.world["admin_token"] not in failure.reproduce


def test_a_malformed_refusal_in_the_lifecycle_is_a_failure_not_a_crash() -> None:
    def errors_not_a_list(request: WireRequest, response: WireResponse) -> WireResponse:
        if (
            request.url.endswith("/graphql")
            and b'"createPersonalAccessToken":null' in response.body
        ):
            return with_json(response, {**response.json(), "errors": 5})
        return response

    report = fuzz_fake(SMALL, faulty_fake(errors_not_a_list))
    checks = _checks(report)
    # The answer is read at the runner's boundary: the malformed envelope is the failure
    # (its refusal code cannot be judged), and the note names the field and what came.
    assert "PAT lifecycle" in checks.get("graphql_envelope", set()), report.render()
    assert "errors: expected a list, got the number 5" in report.render()
