"""compare's reports carry each drift (field, both answers, the request) and each gate
failure; what a deployment answered is escaped, never interpreted."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from patgate.calibration.comparison import Comparison, Drift, Same
from patgate.calibration.probes import RuleBreak
from patgate.calibration.report import parse_reports, write_reports

HOSTILE = '<script>alert("x")</script>\x1b[31m'


def _comparison() -> Comparison:
    return Comparison(
        drift=[Drift("refusals.not_found.message", "no such token", HOSTILE, "POST {graphql_url}")],
        checked=[
            Same("client_token.expires_in", 300, "POST {auth_url}/oauth/token"),
            Same("rate_limit.requests_per_minute", None, "GET {base_url}", "no header"),
        ],
        gate_failures=[RuleBreak("PAT-CAP", "a sixth token was created", "POST {graphql_url}")],
        target="staging.yaml",
    )


def test_every_report_carries_the_drift_and_the_gate_failure(tmp_path: Path) -> None:
    specs = [f"{kind}:{tmp_path / ('r.' + kind)}" for kind in ("json", "junit", "html")]
    write_reports(_comparison(), parse_reports(specs))
    document = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert document["exit_code"] == 1
    assert document["drift"] == [
        {
            "field": "refusals.not_found.message",
            "fake": "no such token",
            "target": HOSTILE,
            "request": "POST {graphql_url}",
        }
    ]
    assert [c["field"] for c in document["checked"]] == [
        "client_token.expires_in",
        "rate_limit.requests_per_minute",
    ]
    assert document["checked"][1]["not_observed"] == "no header"
    assert document["gate_failures"][0]["rule"] == "PAT-CAP"
    suite = ET.parse(tmp_path / "r.junit").getroot()  # noqa: S314 - the file just written
    cases = suite.iter("testcase")
    failed = {case.get("name") for case in cases if case.find("failure") is not None}
    assert failed == {"refusals.not_found.message", "PAT-CAP"}
    assert suite.get("tests") == "4"
    page = (tmp_path / "r.html").read_text("utf-8")
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert "\x1b" not in page
    assert "patgate run" in page
