"""The counterpart guard skips on a developer's machine and fails in CI."""

from __future__ import annotations

import pytest

from tests.counterparts import REQUIRE_VARIABLE, need_counterpart, unexpected_skip


def test_a_missing_counterpart_skips_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(REQUIRE_VARIABLE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs wrk"):
        need_counterpart(False, "needs wrk")


def test_a_missing_counterpart_fails_when_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    with pytest.raises(pytest.fail.Exception, match="needs wrk"):
        need_counterpart(False, "needs wrk")


def test_a_present_counterpart_neither_skips_nor_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    need_counterpart(True, "needs wrk")


SKIPPING = """
import pytest

pytest.importorskip("{module}", reason="needs {module}: pip install {module}")


def test_runs():
    pass


@pytest.mark.skipif(True, reason="needs wrk (apt-get install wrk)")
def test_skips():
    pass


@pytest.mark.xfail(reason="a known bug", strict=True)
def test_known_bug():
    raise AssertionError
"""


def _run_skipping(pytester: pytest.Pytester, module: str) -> pytest.RunResult:
    pytester.makepyfile(test_skipping=SKIPPING.format(module=module))
    return pytester.runpytest_inprocess("-p", "tests.counterparts", "-rs")


def test_skips_name_their_reason_on_a_developers_machine(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(REQUIRE_VARIABLE, raising=False)
    result = _run_skipping(pytester, "json")
    result.assert_outcomes(passed=1, skipped=1, xfailed=1)
    result.stdout.fnmatch_lines(["SKIPPED*needs wrk (apt-get install wrk)"])


def test_an_unexpected_skip_fails_under_the_ci_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    result = _run_skipping(pytester, "json")
    # skipif acts at setup, so the test shows as an error there; xfail is no skip.
    result.assert_outcomes(passed=1, errors=1, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*skipped (needs wrk (apt-get install wrk)), but*EXPECTED_SKIPS*"])


def test_a_module_skipped_at_import_fails_under_the_ci_variable(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    result = _run_skipping(pytester, "no_such_module_here")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*needs no_such_module_here: pip install no_such_module_here*"])
    assert result.parseoutcomes().get("passed", 0) == 0


def test_the_fuzz_extras_skip_is_expected_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(REQUIRE_VARIABLE, "1")
    reason = "needs the fuzz extra: pip install -e '.[fuzz]'"
    where = ("tests/fuzz/test_command.py", 12, f"Skipped: {reason}")
    fuzz = pytest.CollectReport("tests/fuzz/test_command.py", "skipped", where, [])
    assert unexpected_skip(fuzz) is None
    elsewhere = pytest.CollectReport("tests/test_other.py", "skipped", where, [])
    assert f"skipped ({reason})" in (unexpected_skip(elsewhere) or "")
