"""A short run of ``benchmarks/load.py``: the server under load from a second process.

Only correctness is asserted (every request answered, no 5xx, no write lost, a clean exit);
speed belongs to the benchmark (``python -m benchmarks.load``), not to a test.
"""

from __future__ import annotations

import pytest
from benchmarks.load import run_load

pytestmark = pytest.mark.slow


def test_the_loopback_server_under_load_answers_everything_and_loses_no_write() -> None:
    result = run_load(clients=6, seconds=2.0, writers=3)
    assert result["checks"] == {
        "every_request_answered": True,
        "no_5xx": True,
        "no_write_refused": True,
        "no_write_lost": True,
        "server_exit_code_0": True,
        "server_reported_no_failure": True,
    }, result
    assert result["client_failures"] == []
    tokens = result["tokens"]
    assert tokens["created"] > 0
    assert tokens["after"] == tokens["before"] + 2  # writers 0 and 2 keep their last token
    assert set(result["by_kind"]) == {
        "hubs_client_token",
        "hubs_pat",
        "viewer",
        "create",
        "list",
        "delete",
    }


@pytest.mark.parametrize("writers", [-1, 5])
def test_more_writers_than_the_cap_allows_are_refused(writers: int) -> None:
    with pytest.raises(ValueError, match="writers must be 0 to 4"):
        run_load(clients=8, seconds=0.1, writers=writers)
