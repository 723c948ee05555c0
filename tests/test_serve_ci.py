"""``patgate serve`` for CI: the client token's lifetime, a public URL, faults at start,
readiness (the world file appears, whole, only once the server answers), and the control
token kept out of the output."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from tests.control.served import patgate_command, served

pytestmark = pytest.mark.slow


def _serve_fails(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*patgate_command(), "serve", "--port", "0", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _client_token(world: dict[str, str]) -> dict[str, object]:
    answer = httpx.post(
        world["auth_url"] + "/oauth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": world["client_id"],
            "client_secret": world["client_secret"],
        },
    )
    assert answer.status_code == 200, answer.text
    token: dict[str, object] = answer.json()
    return token


def test_expires_in_sets_the_client_token_lifetime(tmp_path: Path) -> None:
    with served(tmp_path / "w.json", "--expires-in", "2") as world:
        token = _client_token(world)
        assert token["expires_in"] == 2
        hubs = world["base_url"] + "/v2/content/hubs"
        auth = {"Authorization": f"Bearer {token['access_token']}"}
        assert httpx.get(hubs, headers=auth).status_code == 200
        control = {"Authorization": f"Bearer {world['control_token']}"}
        # A token lives expires_in seconds from its issue time rounded up to the second.
        advanced = httpx.post(
            world["control_url"] + "/clock/advance", json={"seconds": 3}, headers=control
        )
        assert advanced.status_code == 200
        assert httpx.get(hubs, headers=auth).status_code == 401


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "--expires-in: must be 1 to 315360000, got 0"),
        ("soon", "--expires-in: not a number of seconds: 'soon'"),
        ("315360001", "must be 1 to 315360000"),
    ],
)
def test_a_bad_expires_in_is_a_usage_error(value: str, message: str) -> None:
    result = _serve_fails("--expires-in", value)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_a_public_url_goes_into_the_world_file_the_links_and_the_output(tmp_path: Path) -> None:
    public = "http://patgate.ci.test:8080"
    port = _free_port()
    # Bound on loopback (tests stay off the network); a public URL is allowed there too.
    args = ("--port", str(port), "--public-url", public + "/")
    with served(tmp_path / "w.json", *args) as world:
        assert {world[key] for key in ("auth_url", "base_url")} == {public}
        assert world["graphql_url"] == public + "/graphql"
        # The page's address carries this run's key, so that opening it signs a browser in.
        assert world["ui_url"].startswith(public + "/ui/?key=")
        assert world["control_url"] == public + "/__patgate"
        # Reached through the bound port, as through a container's port mapping.
        hubs = httpx.get(
            f"http://127.0.0.1:{port}/v2/content/hubs",
            headers={"Authorization": "Bearer " + world["admin_token"]},
        )
        assert hubs.status_code == 200
        links = [hub["_links"]["self"]["href"] for hub in hubs.json()["_embedded"]["hubs"]]
        assert links
        assert all(link.startswith(public + "/v2/content/hubs/") for link in links)


def test_a_public_url_is_required_off_loopback() -> None:
    result = _serve_fails("--host", "0.0.0.0")  # noqa: S104 - refused before binding
    assert result.returncode == 2
    assert "--host 0.0.0.0 is not a loopback address: give --public-url URL" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("value", ["patgate:8080", "http://patgate:8080/prefix", "ftp://x"])
def test_a_public_url_that_is_not_an_origin_is_a_usage_error(value: str) -> None:
    result = _serve_fails("--public-url", value)
    assert result.returncode == 2
    assert "--public-url: an origin is http(s)://host[:port]" in result.stderr


def test_faults_are_loaded_at_start(tmp_path: Path) -> None:
    faults = tmp_path / "faults.json"
    rules = {
        "faults": [
            {"id": "fault-9", "endpoint": "hubs", "status": 503, "count": 1, "retry_after": 1},
            {"endpoint": "token", "status": 429, "count": 1},
        ],
        "rate_limit": True,
    }
    faults.write_text(json.dumps(rules))
    with served(tmp_path / "w.json", "--faults", str(faults)) as world:
        auth = {"Authorization": "Bearer " + world["admin_token"]}
        hubs = world["base_url"] + "/v2/content/hubs"
        first = httpx.get(hubs, headers=auth)
        assert (first.status_code, first.headers["Retry-After"]) == (503, "1")
        assert httpx.get(hubs, headers=auth).status_code == 200
        assert httpx.post(world["auth_url"] + "/oauth/token").status_code == 429
        control = {"Authorization": f"Bearer {world['control_token']}"}
        listed = httpx.get(world["control_url"] + "/faults", headers=control).json()
        assert listed["rate_limit"] is True
        assert listed["faults"] == []  # both fired their count


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read: No such file"),
        ("{not json", "faults.json:1: not valid JSON"),
        ('{"rules": []}', "unknown key(s) ['rules']; known: faults, rate_limit"),
        ('"hubs"', "must hold a JSON list of fault rules"),
        ('[{"endpoint": "hubs", "status": 503}, 7]', "rule 2 is not a JSON object"),
        ('[{"endpoint": "hubz", "status": 503}]', "rule 1: fault rule: endpoint must be one of"),
        (
            '[{"endpoint": "hubs", "stauts": 503}]',
            "rule 1: fault rule: unknown field(s) ['stauts']",
        ),
        ('{"faults": [], "rate_limit": "yes"}', "rate_limit must be true or false"),
    ],
)
def test_a_bad_faults_file_exits_2_naming_the_problem(
    tmp_path: Path, content: str | None, message: str
) -> None:
    faults = tmp_path / "faults.json"
    if content is not None:
        faults.write_text(content)
    world_file = tmp_path / "w.json"
    result = _serve_fails("--faults", str(faults), "--world", str(world_file))
    assert result.returncode == 2, result.stderr
    assert str(faults) in result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert not world_file.exists()  # no world file for a server that never answered


def test_the_world_file_appears_whole_only_once_the_server_answers(tmp_path: Path) -> None:
    world_file = tmp_path / "w.json"
    process = subprocess.Popen(
        [*patgate_command(), "serve", "--port", "0", "--world", str(world_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not world_file.exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.002)
        # At once, with no retry: the file is whole and the server answers.
        world = json.loads(world_file.read_text(encoding="utf-8"))
        answer = httpx.get(
            world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": "Bearer " + world["admin_token"]},
        )
        assert answer.status_code == 200
        assert [p.name for p in tmp_path.iterdir()] == ["w.json"]  # no temporary file left
    finally:
        process.terminate()  # the process started here, by its handle
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert out.startswith("patgate serve: listening on http://127.0.0.1:")
    assert world["control_token"] not in out + err  # the token is in the world file only
    assert "control_token of" in out


def test_an_existing_world_file_is_replaced_whole(tmp_path: Path) -> None:
    from patgate.commands.serve import write_world

    world_file = tmp_path / "w.json"
    world_file.write_text('{"old": true, "padding": "' + "x" * 10_000 + '"}')
    world_file.chmod(0o644)
    write_world(world_file, {"client_secret": "s3cret-value"})
    assert json.loads(world_file.read_text()) == {"client_secret": "s3cret-value"}
    assert oct(os.stat(world_file).st_mode & 0o777) == "0o600"
    assert [p.name for p in tmp_path.iterdir()] == ["w.json"]  # no temporary file left


def test_the_log_bytes_default_is_the_request_log_s() -> None:
    from patgate.cli import build_parser
    from patgate.wire.request_log import DEFAULT_LOG_BYTES

    serve = build_parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    help_text = next(a.help for a in serve._actions if "--log-bytes" in a.option_strings)
    assert f"default: {DEFAULT_LOG_BYTES}" in (help_text or "")


def test_the_printed_addresses_name_the_public_url(tmp_path: Path) -> None:
    public = "http://patgate.ci.test:8080"
    process = subprocess.Popen(
        [*patgate_command(), "serve", "--port", "0", "--public-url", public],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline().strip() for _ in range(3)]
    finally:
        process.terminate()  # the process started here, by its handle
        process.communicate(timeout=30)
    assert lines[0].startswith(f"patgate serve: listening on {public} (bound to http://127.0.0.1:")
    assert lines[1].startswith(f"patgate serve: management page at {public}/ui/?key=")
    assert lines[2] == (
        f"patgate serve: control API at {public}/__patgate "
        "(its token is written to the world file: give --world PATH)"
    )


def test_the_world_file_is_written_only_after_the_server_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import signal

    from patgate.cli import main
    from patgate.commands import serve

    seen: list[int] = []
    write_world = serve.write_world

    def write_and_check(path: Path, world: dict[str, str]) -> None:
        # At the moment the file is written, the server must answer at once.
        answer = httpx.get(
            world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": "Bearer " + world["admin_token"]},
            timeout=1,
        )
        seen.append(answer.status_code)
        write_world(path, world)
        signal.raise_signal(signal.SIGTERM)  # ends the serve loop (handled, not fatal)

    monkeypatch.setattr(serve, "write_world", write_and_check)
    assert main(["serve", "--port", "0", "--world", str(tmp_path / "w.json")]) == 0
    assert seen == [200]
    assert "listening on" in capsys.readouterr().out
