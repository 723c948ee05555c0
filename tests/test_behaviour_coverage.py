"""``--patgate-coverage``: which documented behaviours a user's tests drove the fake through."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patgate.basics import behaviours

DRIVES_FOUR = """
import httpx

CREATE = ("mutation($i: CreatePersonalAccessTokenInput!) {"
          " createPersonalAccessToken(input: $i) { id } }")

def test_cap(patgate_world):
    auth = {"Authorization": "Bearer " + patgate_world["admin_token"]}
    variables = {"i": {"name": "t", "organizationId": patgate_world["organization_id"]}}
    for _ in range(5):  # 4 created (the world's token is the first), then the cap
        httpx.post(patgate_world["graphql_url"], headers=auth,
                   json={"query": CREATE, "variables": variables})

def test_reject(patgate_fake):
    created = patgate_fake.request_token_via_ui(patgate_fake.default_world.member_id, "x")
    patgate_fake.reject_token_request(created.id)

def test_nothing(patgate_fake):
    pass
"""


def _rows(text: str) -> dict[str, str]:
    rows = {}
    for line in text.splitlines():
        for key in behaviours.CATALOGUE:
            if line.startswith(key + " "):
                rows[key] = line[len(key) :].split()[0]
    return rows


def test_the_table_lists_what_the_tests_drove(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(DRIVES_FOUR)
    result = pytester.runpytest("--patgate-coverage")
    result.assert_outcomes(passed=3)
    rows = _rows(result.stdout.str())
    assert set(rows) == set(behaviours.CATALOGUE)
    assert rows["PAT-CAP refused"] == "1"
    assert rows["PAT-CREATE-FIELDS created"] == "4"
    assert rows["PAT-APPROVAL rejected"] == "1"
    # Building the default world approves the member's token: set-up is not the test's doing.
    assert rows["PAT-APPROVAL approved"] == "-"
    assert rows["PAT-REMOVED-USER refused"] == "-"
    result.stdout.fnmatch_lines(["*patgate behaviour coverage*", "*4 of 25 behaviours exercised*"])
    assert not behaviours.OBSERVERS  # the session let go of its observer


def test_a_default_world_built_in_the_test_body_is_not_counted(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import httpx
        import patgate
        from patgate.fake.deployment import Deployment

        def test_fakes_of_its_own():
            with patgate.Fake() as fake:
                fake.reset()
            with patgate.Fake(seed=0, expires_in=60) as fake:
                pass
            patgate.Fake(deployment=Deployment(max_tokens_per_user=2))

        def test_one_request_of_its_own():
            with patgate.Fake() as fake:
                auth = {"Authorization": "Bearer " + fake.world["removed_token"]}
                httpx.get(fake.world["base_url"] + "/v2/content/hubs", headers=auth)
        """
    )
    result = pytester.runpytest("--patgate-coverage")
    result.assert_outcomes(passed=2)
    rows = _rows(result.stdout.str())
    # Each world approved the member's token and created four: none of it is counted.
    assert rows["PAT-APPROVAL approved"] == rows["PAT-CREATE-FIELDS created"] == "-"
    assert rows["PAT-REMOVED-USER refused"] == "1"  # the test's own request


def test_without_the_option_there_is_no_report_and_no_observer(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(DRIVES_FOUR)
    result = pytester.runpytest()
    result.assert_outcomes(passed=3)
    assert "behaviour coverage" not in result.stdout.str()
    assert not behaviours.OBSERVERS


def test_json_on_request(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(DRIVES_FOUR)
    out = tmp_path / "coverage.json"
    pytester.runpytest(f"--patgate-coverage-json={out}").assert_outcomes(passed=3)
    report = json.loads(out.read_text())
    counts = {row["behaviour"]: row["count"] for row in report["behaviours"]}
    assert counts["PAT-CAP refused"] == 1
    assert (report["exercised"], report["total"]) == (4, len(behaviours.CATALOGUE))


@pytest.mark.parametrize(("floor", "code"), [(10, 0), (90, 1)])
def test_fail_under_fails_the_session_below_the_floor(
    pytester: pytest.Pytester, floor: int, code: int
) -> None:
    pytester.makepyfile(DRIVES_FOUR)
    result = pytester.runpytest(f"--patgate-coverage-fail-under={floor}")
    assert result.ret == code
    if code:
        result.stdout.fnmatch_lines(["*FAIL: behaviour coverage 16 % is under 90 %*"])


def test_each_fault_and_the_rate_limit_are_behaviours(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx
        import pytest

        @pytest.mark.patgate(faults=[{"endpoint": "hubs", "status": 429, "count": 1}])
        def test_fault(patgate_world):
            auth = {"Authorization": "Bearer " + patgate_world["admin_token"]}
            hubs = patgate_world["base_url"] + "/v2/content/hubs"
            assert httpx.get(hubs, headers=auth).status_code == 429
        """
    )
    rows = _rows(pytester.runpytest("--patgate-coverage").stdout.str())
    assert rows["FAULT status"] == "1"
    assert rows["RATE-LIMIT refused"] == "-"


@pytest.mark.slow
def test_xdist_workers_are_combined(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(DRIVES_FOUR)
    result = pytester.runpytest_subprocess("-n", "2", "-p", "xdist", "--patgate-coverage")
    result.assert_outcomes(passed=3)
    rows = _rows(result.stdout.str())
    assert rows["PAT-CAP refused"] == "1"
    assert rows["PAT-APPROVAL rejected"] == "1"
    assert rows["PAT-CREATE-FIELDS created"] == "4"
    assert result.stdout.str().count("patgate behaviour coverage") == 1


@pytest.mark.slow
def test_the_readme_shows_the_report_of_the_examples() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    done = subprocess.run(
        [*command, "tests/examples", "--run-slow", "--patgate-coverage"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "patgate behaviour coverage" in line)
    end = next(i for i, line in enumerate(lines) if "behaviours exercised" in line)
    report = "\n".join(lines[start + 1 : end + 1])
    readme = (root / "docs/tutorials/fixture.md").read_text(encoding="utf-8")
    shown = readme.split("## Behaviour coverage of your tests", 1)[1]
    shown = shown.split("```text\n", 1)[1].split("```", 1)[0]
    # How often a behaviour was driven varies with retries and timing; whether it was is fixed.
    assert _exercised(shown) == _exercised(report)


def _exercised(report: str) -> str:
    import re

    return re.sub(r"(?m)^(\S+ \S+ +)\d+ ", r"\1N ", report.strip())


def test_making_a_refusal_notes_nothing_answering_it_does() -> None:
    from patgate import Fake
    from patgate.errors import TokenLimitReached

    seen: list[str] = []
    behaviours.observe(seen.append)
    try:
        TokenLimitReached("over the cap")
        assert seen == []
        with Fake() as fake:
            import httpx

            auth = {"Authorization": "Bearer " + fake.world["removed_token"]}
            httpx.get(fake.world["base_url"] + "/v2/content/hubs", headers=auth)
        assert seen.count("PAT-REMOVED-USER refused") == 1  # once, where it is answered
    finally:
        behaviours.unobserve(seen.append)
