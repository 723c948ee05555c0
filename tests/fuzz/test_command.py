"""``patgate fuzz``: the summary, the JSON report and the exit codes 0, 1, 2 and 3."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("schemathesis", reason="needs the fuzz extra: pip install -e '.[fuzz]'")

from patgate.cli import main
from patgate.harness import Fake
from patgate.transports.loopback_server import LoopbackServer
from patgate.wire.messages import WireHandler, WireRequest, WireResponse


def test_the_embedded_fake_passes_and_the_json_report_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report_file = tmp_path / "fuzz.json"
    code = main(["fuzz", "--max-examples", "3", "--seed", "5", "--json", str(report_file)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.startswith("patgate fuzz: embedded fake (seed 5, 3 examples per operation and mode)")
    assert "passed" in out.splitlines()[-1]
    data = json.loads(report_file.read_text())
    assert data["ok"] is True
    assert data["cases"] > 0
    assert data["failures"] == []


@pytest.fixture
def broken_server() -> Iterator[tuple[Fake, str]]:
    """A loopback server whose hubs listing answers 503 to an authenticated call."""

    def wrap(app: WireHandler) -> WireHandler:
        def answer(request: WireRequest) -> WireResponse | None:
            response = app(request)
            hubs = request.url.endswith("/hubs") and request.header("authorization")
            if response is not None and hubs:
                return WireResponse(503, response.headers, b'{"errors":[{"message":"x"}]}')
            return response

        return answer

    server = LoopbackServer()
    fake = Fake(urls=server.urls, wrap_app=wrap)
    server.start(fake.handle)
    try:
        yield fake, server.base_url
    finally:
        server.stop()


def test_a_5xx_exits_1_with_a_redacted_curl_line(
    broken_server: tuple[Fake, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake, _ = broken_server
    world = tmp_path / "world.json"
    world.write_text(json.dumps(fake.world))
    code = main(["fuzz", "--world", str(world), "--max-examples", "3", "--seed", "1"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "FAIL GET /v2/content/hubs +bearer: server_error [503]" in out
    assert "reproduce: curl -X GET -H 'Authorization: [REDACTED]'" in out
    assert fake.world["admin_token"] not in out
    assert fake.world["client_secret"] not in out
    assert "repeat with --seed 1 --max-examples 3" in out


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_target_that_does_not_answer_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    code = main(["fuzz", "--base-url", url, "--max-examples", "2"])
    assert code == 3
    assert "does not answer" in capsys.readouterr().err


def test_writes_on_a_production_target_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = tmp_path / "world.json"
    world.write_text(json.dumps({"base_url": "http://127.0.0.1:9", "production": True}))
    code = main(["fuzz", "--world", str(world), "--allow-writes"])
    assert code == 2
    assert "production" in capsys.readouterr().err


@pytest.mark.parametrize("argument", ["--max-examples=0", "--seed=-1", "--read-timeout=0"])
def test_bad_options_are_usage_errors(argument: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["fuzz", argument])
    assert exited.value.code == 2
