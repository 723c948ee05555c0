"""The counterpart guard skips on a developer's machine and fails in CI."""

from __future__ import annotations

import pytest

from tests.counterparts import REQUIRE_VARIABLE, need_counterpart


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
