"""A fake started before the process imports requests intercepts requests all the same.

Starting a fake does not import requests (it costs more than the rest of a first fake); the
interception starts inside the ``import`` that first loads it. Every test here runs its
script in a fresh interpreter, where requests is not imported yet: in this test session it
always is, which would prove nothing.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

PRELUDE = """
import sys

from patgate.harness import Fake
from patgate.wire import UnmatchedRequest


def hubs(fake, requests):
    world = fake.world
    return requests.get(
        world["base_url"] + "/v2/content/hubs",
        headers={"Authorization": "Bearer " + world["admin_token"]},
        timeout=5,
    )


def not_imported_yet():
    assert "requests" not in sys.modules, "requests was imported before the test began"
"""


def _run(script: str) -> None:
    code = PRELUDE + textwrap.dedent(script)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr


def test_requests_imported_after_the_fake_started_reaches_the_fake() -> None:
    _run(
        """
        fake = Fake().start()
        not_imported_yet()
        import requests

        answer = hubs(fake, requests)
        assert answer.status_code == 200, answer.text
        assert answer.json()["page"]["totalElements"] == 3
        assert len(fake.request_log) == 1
        fake.stop()
        """
    )


def test_a_fake_neither_imports_requests_nor_leaves_an_import_hook_behind() -> None:
    _run(
        """
        with Fake() as fake:
            import httpx

            assert hubs(fake, httpx).status_code == 200
        not_imported_yet()
        assert [f for f in sys.meta_path if type(f).__module__.startswith("patgate")] == []
        """
    )


def test_a_strict_fake_refuses_the_network_for_requests_imported_later() -> None:
    _run(
        """
        with Fake(strict=True) as fake:
            not_imported_yet()
            import requests

            assert hubs(fake, requests).status_code == 200
            try:
                requests.get("http://127.0.0.1:9/elsewhere", timeout=5)
            except UnmatchedRequest as error:
                assert "the fake serves" in str(error)
            else:
                raise AssertionError("a strict fake let requests reach the network")
        """
    )


def test_several_fakes_each_answer_their_own_urls_once_requests_is_imported() -> None:
    _run(
        """
        first = Fake(urls={"base_url": "https://one.test", "auth_url": "https://auth.one.test"})
        second = Fake(urls={"base_url": "https://two.test", "auth_url": "https://auth.two.test"})
        second.add_hub("only in the second")
        with first, second:
            not_imported_yet()
            import requests

            assert hubs(first, requests).json()["page"]["totalElements"] == 3
            assert hubs(second, requests).json()["page"]["totalElements"] == 4
            assert (len(first.request_log), len(second.request_log)) == (1, 1)
        """
    )


def test_fakes_stopped_before_the_import_intercept_nothing_and_a_later_one_does() -> None:
    # Nothing listens on these ports: a request no fake answers fails to connect.
    _run(
        """
        import socket

        def closed_url():
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                return f"http://127.0.0.1:{probe.getsockname()[1]}"

        def unanswered(fake, requests):
            try:
                hubs(fake, requests)
            except requests.ConnectionError:
                return True
            return False

        stopped = [Fake(urls={"base_url": closed_url()}) for _ in range(3)]
        for fake in stopped:
            fake.start()
            fake.stop()
            fake.start().stop()
        current = Fake(urls={"base_url": closed_url()}).start()
        not_imported_yet()
        import requests

        assert hubs(current, requests).status_code == 200
        assert all(unanswered(fake, requests) for fake in stopped)
        current.stop()
        assert unanswered(current, requests)
        """
    )


def test_a_responses_mock_imported_after_the_fake_keeps_its_own_urls() -> None:
    _run(
        """
        with Fake() as fake:
            not_imported_yet()
            import requests
            import responses

            with responses.RequestsMock() as mock:
                mock.get("https://elsewhere.test/thing", json={"from": "mock"})
                assert requests.get("https://elsewhere.test/thing", timeout=5).json() == {
                    "from": "mock"
                }
                assert hubs(fake, requests).status_code == 200
            assert len(fake.request_log) == 1
        """
    )
