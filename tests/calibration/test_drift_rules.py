"""What compare counts as drift: shapes node by node, noise apart, accepted entries until
they expire."""

from __future__ import annotations

import datetime as dt

from patgate.calibration.comparison import compare_results
from patgate.calibration.drift_rules import Acceptance, differences
from patgate.calibration.probes import Finding, ProbeResult

HUB = {
    "status": 200,
    "content_type": "application/hal+json",
    "headers": [],
    "body": {"type": "object", "keys": {"id": {"type": "string", "form": "text"}}},
}


def _result(**values: object) -> ProbeResult:
    result = ProbeResult()
    for name, value in values.items():
        dotted = name.replace("__", ".")
        result.findings[dotted] = Finding(dotted, value, "GET {base_url}/v2/content/hubs")
    return result


def _with_plan(sample: object = None) -> dict[str, object]:
    plan: dict[str, object] = {"type": "string", "form": "text"}
    if sample is not None:
        plan["sample"] = sample
    keys = {**HUB["body"]["keys"], "plan": plan}  # type: ignore[index]
    return {**HUB, "body": {"type": "object", "keys": keys}}


def test_a_shape_differs_node_by_node() -> None:
    found = differences("shapes.hub", HUB, _with_plan())
    assert found == [("shapes.hub.body.keys.plan", "absent", "extra (string)", "")]
    assert differences("shapes.hub", _with_plan(), HUB) == [
        ("shapes.hub.body.keys.plan", "present", "absent", "")
    ]


def test_a_sample_that_differs_is_noise_not_drift() -> None:
    comparison = compare_results(
        _result(shapes__hub=_with_plan("enterprise")), _result(shapes__hub=_with_plan("basic"))
    )
    assert comparison.drift == []
    assert [n.field for n in comparison.noise] == ["shapes.hub.body.keys.plan.sample"]
    assert comparison.exit_code == 0
    assert comparison.as_json()["noise"][0]["field"] == "shapes.hub.body.keys.plan.sample"


def test_expires_in_a_few_seconds_short_is_noise_and_far_off_is_drift() -> None:
    close = compare_results(
        _result(client_token__expires_in=3598), _result(client_token__expires_in=3600)
    )
    assert (close.drift, [n.field for n in close.noise]) == ([], ["client_token.expires_in"])
    far = compare_results(
        _result(client_token__expires_in=300), _result(client_token__expires_in=3600)
    )
    assert [d.field for d in far.drift] == ["client_token.expires_in"]
    assert far.noise == []


def _accepting(expires: str, today: dt.date) -> Acceptance:
    entry = {"field": "shapes.hub.body.keys.plan", "reason": "being retired", "expires": expires}
    return Acceptance.of_document({"accepted": [entry]}, today)


def test_an_accepted_difference_is_reported_as_accepted_not_drift() -> None:
    acceptance = _accepting("2027-01-31", dt.date(2027, 1, 31))
    comparison = compare_results(
        _result(shapes__hub=_with_plan()), _result(shapes__hub=HUB), acceptance
    )
    assert comparison.drift == []
    assert [(a.drift.field, a.reason) for a in comparison.accepted] == [
        ("shapes.hub.body.keys.plan", "being retired")
    ]
    assert comparison.exit_code == 0
    assert comparison.as_json()["accepted"][0]["expires"] == "2027-01-31"


def test_an_expired_acceptance_is_drift_again() -> None:
    acceptance = _accepting("2027-01-31", dt.date(2027, 2, 1))
    comparison = compare_results(
        _result(shapes__hub=_with_plan()), _result(shapes__hub=HUB), acceptance
    )
    assert [d.field for d in comparison.drift] == ["shapes.hub.body.keys.plan"]
    assert comparison.accepted == []
    assert comparison.exit_code == 1


def test_an_acceptance_names_its_field_and_what_is_below_it_only() -> None:
    acceptance = _accepting("2027-01-31", dt.date(2027, 1, 1))
    assert acceptance.covering("shapes.hub.body.keys.plan") is not None
    assert acceptance.covering("shapes.hub.body.keys.plan.form") is not None
    assert acceptance.covering("shapes.hub.body.keys.planned") is None
    assert acceptance.covering("shapes.hub.body.keys") is None
