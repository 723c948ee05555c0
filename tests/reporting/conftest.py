"""Fixtures of the reporter tests."""

from __future__ import annotations

import pytest

from patgate.runner.results.events import Event
from tests.reporting.sample import SAMPLE_SCENARIOS, run_events


@pytest.fixture
def sample_run() -> list[Event]:
    """Two passes, a gate failure, an advisory warning and a skip; exit code 1."""
    return run_events(*SAMPLE_SCENARIOS)
