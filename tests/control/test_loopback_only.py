"""The runner controls a served fake through its control API on loopback only.

The whole run against ``patgate serve`` (every scenario, none skipped) is
``tests/selftest/test_served_fake.py``."""

from __future__ import annotations

import pytest

from patgate.runner.connection.config import TargetConfig
from patgate.runner.connection.served_fake_control import http_control_for, is_loopback_url


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8080/__patgate", True),
        ("http://127.9.9.9/__patgate", True),
        ("http://[::1]:9/__patgate", True),
        ("http://localhost:9/__patgate", True),
        ("https://api.example.com/__patgate", False),
        ("http://10.0.0.1/__patgate", False),
        ("not a url", False),
    ],
)
def test_control_goes_to_loopback_only(url: str, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback
    config = TargetConfig(
        {"base_url": "http://127.0.0.1:1", "control_url": url, "control_token": "t"}
    )
    assert (http_control_for(config) is not None) is loopback


def test_no_control_without_a_token() -> None:
    config = TargetConfig({"base_url": "http://127.0.0.1:1", "control_url": "http://127.0.0.1:1"})
    assert http_control_for(config) is None
