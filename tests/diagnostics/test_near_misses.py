"""When the fake refuses, the test author learns why: a downstream test file with one test
per common mistake, each failing test's report naming its cause with the facts; an unused
fault reported at teardown (a failure under ``strict=True``); a stray host named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

_SECTION = "patgate: requests the fake refused"

# test name -> what its failure report must say (facts, not a generic message).
EXPECTED = {
    "test_client_token_after_expiry": [
        r"client-token-expired: client token expired 1[0-9] s ago \(issued at [0-9-]+ "
        r"[0-9:]+, expires_in 300, the fake's clock is [0-9-]+ [0-9:]+\)"
    ],
    "test_pat_of_a_removed_user": [r"owner-removed: the token's owner, user \S+@\S+, is no longer"],
    "test_deleted_pat": [r"pat-revoked: PAT \S+ \('ci'\) was deleted by its owner at"],
    "test_wrong_secret": [r"client-secret-mismatch: the client secret does not match client '"],
    "test_missing_grant_type": [
        r"grant-type-missing: grant_type missing \(fields received: client_id, client_secret\)"
    ],
    "test_json_token_request": [
        r"token-request-not-form: token requests must be form-encoded \(received "
        r"application/json\)"
    ],
    "test_made_up_bearer": [r"bearer-not-issued: the bearer token was not issued by this fake"],
    "test_member_creates_a_pat": [
        r"not-admin: user \S+@\S+ is not an admin of organization \S+ \(their role there: member\)"
    ],
    "test_sixth_token": [
        r"token-cap: user \S+@\S+ holds 5 tokens \(the cap is 5\): '[^']+', 'ci', 'deploy'"
    ],
    "test_foreign_organization": [r"foreign-organization: user \S+ creates in organization"],
    "test_typo_in_a_content_path": [
        r"no-route: no route GET /v2/content/hub \(did you mean /v2/content/hubs\?\)"
    ],
    "test_authorization_without_bearer": [
        r"bearer-scheme: the Authorization header has no Bearer scheme"
    ],
    "test_a_fault_answered": [
        r"fault: fault rule fault-1 answered \(added at test_mistakes\.py:[0-9]+\)"
    ],
    "test_a_stray_host": [r"stray\.example\.invalid"],
    "test_a_fault_never_triggered_under_strict": [
        r"fault rule fault-1 \(token, added at test_mistakes\.py:[0-9]+\) never answered"
    ],
}


def _sections(output: str) -> dict[str, str]:
    """Each failing test's report, by test name (pytest's ``____ name ____`` headers)."""
    parts = re.split(r"^_{3,} (?:ERROR at teardown of )?(test_\w+) _{3,}$", output, flags=re.M)
    found: dict[str, str] = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        found[name] = found.get(name, "") + body
    return found


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int]:
    import subprocess
    import sys

    project = tmp_path_factory.mktemp("downstream")
    (project / "test_mistakes.py").write_text(
        (Path(__file__).parent / "mistakes.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-rA"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.stdout + done.stderr, done.returncode


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_mistake_names_its_cause(name: str, outcome: tuple[str, int]) -> None:
    output, _ = outcome
    section = _sections(output).get(name, "")
    assert section, f"{name} did not fail:\n{output[-3000:]}"
    for pattern in EXPECTED[name]:
        assert re.search(pattern, section), f"{name}: no {pattern!r} in\n{section}"


def test_the_refusals_have_their_own_section(outcome: tuple[str, int]) -> None:
    output, code = outcome
    assert code == 1
    section = _sections(output)["test_wrong_secret"]
    assert _SECTION in section
    assert re.search(r"POST https://auth\.\S+/oauth/token -> 400", section)


def test_an_unused_fault_is_reported_with_where_it_was_added(outcome: tuple[str, int]) -> None:
    output, _ = outcome
    assert re.search(
        r"fault rule fault-1 \(token, added at test_mistakes\.py:[0-9]+\) never answered a "
        r"request",
        output,
    )
    assert "test_a_fault_never_triggered PASSED" in output or re.search(
        r"PASSED test_mistakes\.py::test_a_fault_never_triggered\b", output
    )


def test_a_marker_fault_is_reported_as_the_markers(outcome: tuple[str, int]) -> None:
    output, _ = outcome
    assert "fault rule fault-1 (token, added at the patgate marker) never answered" in output


def test_no_secret_or_token_value_in_any_reason(outcome: tuple[str, int]) -> None:
    output, _ = outcome
    # Only patgate's own sections: a failing assert of the user's shows the user's values.
    blocks = re.findall(rf"-+ {_SECTION} -+\n(.*?)(?:\n\n|\Z)", output, flags=re.S)
    assert len(blocks) >= 12
    shown = "\n".join(blocks)
    assert not re.search(r"amp_pat_[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}", shown)
    assert not re.search(r"eyJ[A-Za-z0-9_-]{10,}\.eyJ", shown)
    assert "not-the-secret" not in shown
