from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from patgate.harness import WORLD_KEYS

pytestmark = pytest.mark.slow


def _patgate() -> list[str]:
    script = shutil.which("patgate", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "patgate"]


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*_patgate(), "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _listening(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("patgate serve: listening on http://127.0.0.1:"), line
    return line.rsplit(" ", 1)[1].strip()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, Path]]:
    world_file = tmp_path / "w.json"
    process = _start("--port", "0", "--world", str(world_file))
    try:
        yield process, _listening(process), world_file
    finally:
        if process.poll() is None:
            process.kill()  # the process this fixture started, by its handle
            process.wait(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_writes_the_world_answers_and_exits_0_on_a_signal(
    served: tuple[subprocess.Popen[str], str, Path], sig: signal.Signals
) -> None:
    process, url, world_file = served
    world = json.loads(world_file.read_text())
    assert tuple(world) == WORLD_KEYS
    assert world["auth_url"] == world["base_url"] == url
    assert world["graphql_url"] == url + "/graphql"
    assert world["ui_url"].startswith(url + "/ui/?key=")
    assert process.stdout is not None
    assert (
        process.stdout.readline().strip() == f"patgate serve: management page at {world['ui_url']}"
    )
    assert stat.S_IMODE(os.stat(world_file).st_mode) == 0o600

    with httpx.Client() as client:
        token = client.post(
            world["auth_url"] + "/oauth/token",
            data={
                "client_id": world["client_id"],
                "client_secret": world["client_secret"],
                "grant_type": "client_credentials",
            },
        )
        assert token.status_code == 200
        auth = {"Authorization": f"Bearer {token.json()['access_token']}"}
        assert client.get(world["base_url"] + "/v2/content/hubs", headers=auth).status_code == 200
        viewer = client.post(
            world["graphql_url"],
            json={"query": "{ viewer { id } }"},
            headers={"Authorization": f"bearer {world['member_token']}"},
        )
        assert viewer.status_code == 200
        page = client.get(world["ui_url"], follow_redirects=True)
        assert page.status_code == 200
        assert "Who you are" in page.text
        assert page.headers["content-type"] == "text/html; charset=utf-8"
        removed = client.get(
            world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": f"Bearer {world['removed_token']}"},
        )
        assert removed.status_code == 403

    process.send_signal(sig)
    out, err = process.communicate(timeout=10)
    assert process.returncode == 0, err
    assert "stopped" in out
    assert "Traceback" not in err


def test_a_port_in_use_is_a_usage_error(
    served: tuple[subprocess.Popen[str], str, Path],
) -> None:
    _, url, _ = served
    port = url.rsplit(":", 1)[1]
    second = subprocess.run(
        [*_patgate(), "serve", "--port", port], capture_output=True, text=True, timeout=30
    )
    assert second.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in second.stderr
    assert "Traceback" not in second.stderr


def test_an_unwritable_world_file_is_a_usage_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [*_patgate(), "serve", "--world", str(tmp_path / "missing" / "w.json")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert "cannot write the world file" in result.stderr


def test_a_bad_port_is_refused_by_the_parser() -> None:
    result = subprocess.run(
        [*_patgate(), "serve", "--port", "70000"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2
    assert "--port: must be 0 to 65535, got 70000" in result.stderr


def test_an_existing_world_file_is_made_owner_only_before_it_holds_secrets(
    tmp_path: Path,
) -> None:
    from patgate.commands.serve import write_world

    world_file = tmp_path / "w.json"
    world_file.write_text("{}")
    world_file.chmod(0o644)
    write_world(world_file, {"client_secret": "s3cret-value"})
    assert stat.S_IMODE(os.stat(world_file).st_mode) == 0o600
    assert json.loads(world_file.read_text()) == {"client_secret": "s3cret-value"}


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::"])  # noqa: S104
def test_a_host_beyond_loopback_is_warned_about_naming_what_it_exposes(
    host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from patgate.commands.serve import _warn_if_reachable

    _warn_if_reachable(host, "http://192.168.1.5:8080")
    err = capsys.readouterr().err
    assert f"--host {host} listens beyond this machine" in err
    for exposed in ("token endpoint", "content API", "GraphQL", "control API", "management page"):
        assert exposed in err


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_a_loopback_host_is_not_warned_about(host: str, capsys: pytest.CaptureFixture[str]) -> None:
    from patgate.commands.serve import _warn_if_reachable

    _warn_if_reachable(host, "http://127.0.0.1:8080")
    assert capsys.readouterr().err == ""
