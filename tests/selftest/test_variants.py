"""The other half of the self-test: a deployment that differs from the fake only where the
spec is silent (status codes of errors, error bodies, the delete's result, the mask's width,
the precision of lastUsedDate, the hub record's fields, the token's alphabet) passes every
gate rule. Advisory rules may warn; nothing may fail the run or crash it. A deployment that
does not meet a rule's precondition (no hub link advertised) leaves it not checked."""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from patgate.basics.resources import scenarios_dir
from patgate.fake.deployment import Deployment
from patgate.fake.pat_format import MintedPat, PatFormat
from patgate.harness import Fake
from patgate.runner import FakeTarget, RunOptions, run
from patgate.runner.results.events import Outcome, RunFinished
from patgate.scenario import Scenario, load_scenarios
from patgate.wire.messages import WireHandler, WireRequest, WireResponse

from .faults import Wrap, _walk, listings_showing, rewrite

# Every scenario against each variant deployment.
pytestmark = pytest.mark.slow

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


def _last_used_without_milliseconds(request: WireRequest, response: WireResponse, body: Any) -> Any:
    # Spec 2.1: createdDate "with milliseconds", lastUsedDate only "ISO 8601 UTC timestamp".
    def change(key: str, value: Any) -> Any:
        if key == "lastUsedDate" and isinstance(value, str):
            return re.sub(r"\.\d{3}Z$", "Z", value)
        return value

    return _walk(body, change)


def _last_used_in_microseconds_and_offset(
    request: WireRequest, response: WireResponse, body: Any
) -> Any:
    def change(key: str, value: Any) -> Any:
        if key == "lastUsedDate" and isinstance(value, str):
            return re.sub(r"\.(\d{3})Z$", r".\g<1>123+00:00", value)
        return value

    return _walk(body, change)


def _delete_answers_an_object(request: WireRequest, response: WireResponse, body: Any) -> Any:
    # Spec 4.3: the result shape of deletePersonalAccessToken is not shown.
    data = body.get("data")
    if isinstance(data, dict) and data.get("deletePersonalAccessToken") is True:
        sent = json.loads(request.body)
        token_id = json.dumps(sent.get("variables") or {}).split('"id": "')[-1].split('"')[0]
        data["deletePersonalAccessToken"] = {"id": token_id, "deleted": True}
    return body


def _refused_delete_is_an_object(request: WireRequest, response: WireResponse, body: Any) -> Any:
    data = body.get("data")
    if isinstance(data, dict) and "deletePersonalAccessToken" in data:
        done = data["deletePersonalAccessToken"] is True and not body.get("errors")
        return {"data": {"deletePersonalAccessToken": {"id": "x", "deleted": done}}}
    return body


def _hubs_without_settings(request: WireRequest, response: WireResponse, body: Any) -> Any:
    # Spec 2.6: the hub record's fields are not shown.
    if "/v2/content/hubs" not in request.url or not isinstance(body, dict):
        return body
    for hub in [body, *((body.get("_embedded") or {}).get("hubs") or [])]:
        hub.pop("settings", None)
    return body


def _other_graphql_messages_and_codes(
    request: WireRequest, response: WireResponse, body: Any
) -> Any:
    # Spec 7: the error body format is not shown.
    for error in body.get("errors") or []:
        error["message"] = "Request refused"
        error["extensions"] = {"code": "E_REFUSED", "classification": "DataFetchingException"}
    return body


def _wide_mask(request: WireRequest, response: WireResponse, body: Any) -> Any:
    viewer = (body.get("data") or {}).get("viewer")
    if isinstance(viewer, dict):
        for entry in viewer.get("personalAccessTokens") or []:
            # The prefix and 12 characters of the id segment, then 60 asterisks.
            entry["token"] = entry["token"].rstrip("*")[: len("amp_pat_") + 12].ljust(80, "*")
    return body


def _listing_answers_203(request: WireRequest, response: WireResponse, body: Any) -> Any:
    # Spec 4.2: the listing "returns a list of hubs"; the status of that success is not shown.
    if response.status == 200:
        return WireResponse(203, response.headers, response.body)
    return body


def _paging_parameters_refused(request: WireRequest, response: WireResponse, body: Any) -> Any:
    # Spec 4.2: the listing's query parameters are not shown; this one refuses them.
    if "size=" in request.url or "page=" in request.url:
        refusal = {"errors": [{"message": "unknown parameter"}]}
        return WireResponse(400, _JSON, json.dumps(refusal).encode())
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
    Variant(
        "lastUsedDate has no milliseconds",
        rewrite("/graphql", _last_used_without_milliseconds),
    ),
    Variant(
        "lastUsedDate has microseconds and +00:00",
        rewrite("/graphql", _last_used_in_microseconds_and_offset),
    ),
    Variant(
        "the delete answers an object {id deleted}",
        rewrite("/graphql", _delete_answers_an_object),
    ),
    Variant(
        "a delete answers {id deleted}, false when refused, without errors",
        rewrite("/graphql", _refused_delete_is_an_object),
    ),
    Variant("hubs have no settings", rewrite("", _hubs_without_settings)),
    Variant(
        "GraphQL refusals have other messages and codes",
        rewrite("/graphql", _other_graphql_messages_and_codes),
    ),
    Variant("listings show 12 characters and 60 asterisks", rewrite("/graphql", _wide_mask)),
    Variant("the hubs listing answers 203", rewrite("/hubs", _listing_answers_203)),
    Variant(
        "the hubs listing refuses page and size",
        rewrite("/hubs", _paging_parameters_refused),
    ),
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


def _rules(fake: Fake) -> tuple[RunFinished, dict[str, Any]]:
    end = list(run(_builtin(), FakeTarget(fake), RunOptions()))[-1]
    assert isinstance(end, RunFinished)
    return end, {rule.rule_id: rule for rule in end.rules}


def test_hubs_without_settings_pass_the_hal_advisory_too() -> None:
    # The hub record is not shown by the specification; settings is typed, not required.
    fake = Fake(wrap_app=rewrite("", _hubs_without_settings))
    world = fake.world
    with httpx.Client(transport=fake.httpx_transport()) as client:
        listing = client.get(
            f"{world['base_url']}/v2/content/hubs",
            headers={"Authorization": f"Bearer {world['admin_token']}"},
        ).json()
    assert listing["_embedded"]["hubs"]
    assert all("settings" not in hub for hub in listing["_embedded"]["hubs"])
    end, rules = _rules(fake)
    assert rules["HUBS-HAL"].outcome is Outcome.PASSED
    assert end.exit_code == 0


def test_a_token_answer_repeating_the_secret_is_an_advisory_warning() -> None:
    # Spec 4.1 asks 200 and the body of 2.5; not repeating the secret is OAuth good practice.
    def echo(request: WireRequest, response: WireResponse, body: Any) -> Any:
        if response.status == 200:
            sent = dict(pair.split("=", 1) for pair in request.body.decode().split("&"))
            body["client_secret"] = sent.get("client_secret", "")
        return body

    end, rules = _rules(Fake(wrap_app=rewrite("/oauth/token", echo)))
    assert rules["TOKEN-OK"].outcome is Outcome.PASSED
    assert rules["TOKEN-OAUTH-RESPONSE"].outcome is Outcome.WARNING
    assert end.exit_code == 0


def _no_hub_links(request: WireRequest, response: WireResponse, body: Any) -> Any:
    for hub in (body.get("_embedded") or {}).get("hubs") or []:
        hub.pop("_links", None)
    return body


def _no_hubs(request: WireRequest, response: WireResponse, body: Any) -> Any:
    if response.status == 200:
        body.pop("_embedded", None)
        body["page"] = {**body.get("page", {}), "totalElements": 0, "totalPages": 0}
    return body


def _links_to_another_host(request: WireRequest, response: WireResponse, body: Any) -> Any:
    for hub in (body.get("_embedded") or {}).get("hubs") or []:
        hub["_links"]["self"]["href"] = "https://elsewhere.example/v2/content/hubs/" + hub["id"]
    return body


@pytest.mark.parametrize(
    "change",
    [_no_hub_links, _no_hubs, _links_to_another_host],
    ids=["hubs without links", "no hub listed", "links to another host"],
)
def test_a_hub_link_not_advertised_leaves_every_path_not_checked(change: Any) -> None:
    # The runner follows only what the deployment advertises: with no hub link, the rule's
    # precondition is not met, which is "not checked" with the reason, never "failed".
    end, rules = _rules(Fake(wrap_app=rewrite("/hubs", change)))
    every_path = rules["CONTENT-AUTH-EVERY-PATH"]
    assert every_path.outcome is Outcome.NOT_CHECKED
    (scenario,) = [s for s in end.scenarios if s.scenario_id == "content-auth-single-hub"]
    assert scenario.outcome is Outcome.NOT_CHECKED
    assert "advertises no hub link under base_url to follow" in scenario.reason
    gates = {rule_id: r.outcome for rule_id, r in rules.items() if r.level == "gate"}
    assert Outcome.FAILED not in gates.values()
    assert end.exit_code == 0


class _StandardBase64(PatFormat):
    """Tokens of standard base64 characters (``+`` and ``/``), not base64url."""

    def mint(self) -> MintedPat:
        id_segment = "+/" + base64.b64encode(secrets.token_bytes(15)).decode()
        value = f"{self.prefix}{id_segment}.{base64.b64encode(secrets.token_bytes(30)).decode()}"
        return MintedPat(value, id_segment, self.hash(value), self.mask(id_segment))

    def id_segment_of(self, value: str) -> str | None:
        rest = value[len(self.prefix) :] if value.startswith(self.prefix) else ""
        parts = rest.split(".")
        return parts[0] if len(parts) == 2 and all(parts) else None


class _StandardBase64Deployment(Deployment):
    def __init__(self) -> None:
        super().__init__()
        self.pat_format = _StandardBase64(self.pat_format.prefix)


def test_tokens_of_another_alphabet_pass_the_format_rule() -> None:
    # Spec 2.1: a prefix, a segment, a dot and a second segment; no alphabet is named.
    end, rules = _rules(Fake(deployment=_StandardBase64Deployment()))
    assert rules["PAT-FORMAT"].outcome is Outcome.PASSED
    gates = {rule_id: r.outcome for rule_id, r in rules.items() if r.level == "gate"}
    assert set(gates.values()) == {Outcome.PASSED}, gates
    assert end.exit_code == 0


def test_a_mask_reaching_into_the_secret_passes_the_gate_and_warns() -> None:
    # Spec 2.1: "only the start is returned and the rest is replaced by asterisks"; how much
    # of the start is not said. Stopping before the secret segment is a convention (D33).
    def reaching(value: str) -> str:
        return value[: value.index(".") + 4] + "*" * 16

    end, rules = _rules(Fake(wrap_app=listings_showing(reaching)))
    assert rules["PAT-LIST-MASKED"].outcome is Outcome.PASSED
    assert rules["PAT-MASK-HIDES-SECRET"].outcome is Outcome.WARNING
    gates = {rule_id: r.outcome for rule_id, r in rules.items() if r.level == "gate"}
    assert set(gates.values()) == {Outcome.PASSED}
    assert end.exit_code == 0


def _hubs_at_another_path(app: WireHandler) -> WireHandler:
    """One hub is served at ``/v2/content/hub-records/{id}``, which its self link names;
    ``/v2/content/hubs/{id}``, a URL the deployment never advertises, is not found."""
    direct = re.compile(r"/v2/content/hubs/[0-9a-f]{24}$")

    def handler(request: WireRequest) -> WireResponse | None:
        path = request.url.split("?")[0]
        if direct.search(path):
            missing = {"errors": [{"message": "not found"}]}
            return WireResponse(404, _JSON, json.dumps(missing).encode())
        if "/v2/content/hub-records/" in path:
            request = dataclasses.replace(
                request, url=request.url.replace("/hub-records/", "/hubs/")
            )
        response = app(request)
        if response is None or not path.endswith("/v2/content/hubs"):
            return response
        body = json.loads(response.body)
        for hub in (body.get("_embedded") or {}).get("hubs") or []:
            link = hub["_links"]["self"]
            link["href"] = link["href"].replace("/v2/content/hubs/", "/v2/content/hub-records/")
        return WireResponse(response.status, response.headers, json.dumps(body).encode())

    return handler


def test_a_hub_served_only_where_its_link_says_passes_every_path() -> None:
    # The runner follows the advertised link; a URL it would build itself is not the rule's.
    end, rules = _rules(Fake(wrap_app=_hubs_at_another_path))
    assert rules["CONTENT-AUTH-EVERY-PATH"].outcome is Outcome.PASSED
    gates = {rule_id: r.outcome for rule_id, r in rules.items() if r.level == "gate"}
    assert set(gates.values()) == {Outcome.PASSED}
    assert end.exit_code == 0
