"""The vendor's published CLI (``@amplience/dc-cli``, pinned in tests/clients/vendor.py)
against ``patgate serve`` in its own process, with client credentials.

0.19.1 has no webhook command: ``event export`` is the nearest hub-scoped export and runs
instead. The CLI exits 0 even after an error and retries with back-off, so the tests set
``DC_CLI_DELAY_FACTOR`` small and judge what it prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.clients.vendor import CLI_BIN

pytestmark = pytest.mark.usefixtures("vendor_packages")

SERVE_START_LIMIT = 60.0


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """``patgate serve --world FILE`` in a child process; yields the target file's keys."""
    folder = tmp_path_factory.mktemp("serve")
    world_file = folder / "world.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "patgate", "serve", "--world", str(world_file)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + SERVE_START_LIMIT
        while not world_file.exists() or not world_file.read_text(encoding="utf-8").strip():
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("patgate serve did not start")
            time.sleep(0.05)
        yield json.loads(world_file.read_text(encoding="utf-8"))
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def _hub(world: dict[str, Any]) -> dict[str, Any]:
    import httpx

    response = httpx.get(
        world["base_url"] + "/v2/content/hubs",
        headers={"Authorization": f"Bearer {world['admin_token']}"},
    )
    hub: dict[str, Any] = response.json()["_embedded"]["hubs"][0]
    return hub


def dc_cli(world: dict[str, Any], home: Path, *arguments: str, secret: str | None = None) -> str:
    """Run the CLI with the world's client and first hub; returns stdout and stderr."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "API_URL": world["base_url"] + "/v2/content",
        "AUTH_URL": world["auth_url"],
        "DC_CLI_DELAY_FACTOR": "0.001",
    }
    credentials = [
        "--clientId",
        world["client_id"],
        "--clientSecret",
        secret if secret is not None else world["client_secret"],
        "--hubId",
        _hub(world)["id"],
    ]
    done = subprocess.run(
        [str(CLI_BIN), *arguments, *credentials],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=home,
    )
    return done.stdout + done.stderr


@pytest.mark.parametrize(
    ("command", "seeded"),
    [
        ("content-repository list", ["content", "slots", "Content", "Slots"]),
        ("content-type list", ["Article", "Banner"]),
        ("content-type-schema list", ["article.json", "banner.json", "CONTENT_TYPE"]),
    ],
)
def test_a_listing_prints_the_seeded_records(
    serve: dict[str, Any], tmp_path: Path, command: str, seeded: list[str]
) -> None:
    output = dc_cli(serve, tmp_path, *command.split())
    assert "Error" not in output
    for text in seeded:
        assert text in output


def test_settings_export_writes_the_hub_and_its_workflow_states(
    serve: dict[str, Any], tmp_path: Path
) -> None:
    output = dc_cli(serve, tmp_path, "settings", "export", str(tmp_path / "out"), "--force")
    assert "exported successfully" in output
    [exported] = (tmp_path / "out").glob("hub-settings-*.json")
    settings = json.loads(exported.read_text(encoding="utf-8"))
    assert settings["id"] == _hub(serve)["id"]
    assert [state["label"] for state in settings["workflowStates"]] == ["Todo", "In review", "Done"]


def test_extension_export_writes_the_seeded_extension(
    serve: dict[str, Any], tmp_path: Path
) -> None:
    output = dc_cli(serve, tmp_path, "extension", "export", str(tmp_path / "out"))
    assert "CREATED" in output
    extension = json.loads((tmp_path / "out" / "rich-text.json").read_text(encoding="utf-8"))
    assert extension["name"] == "rich-text"


def test_event_export_reads_the_seeded_event(serve: dict[str, Any], tmp_path: Path) -> None:
    output = dc_cli(serve, tmp_path, "event", "export", str(tmp_path / "out"))
    assert "Fetching Spring launch with editions" in output
    assert "Failed to fetch editions" not in output
    assert "not available" not in output
    exported = json.loads((tmp_path / "out" / "Spring launch.json").read_text(encoding="utf-8"))
    assert exported["name"] == "Spring launch"


def test_a_wrong_secret_prints_the_clis_unauthorized_message(
    serve: dict[str, Any], tmp_path: Path
) -> None:
    output = dc_cli(serve, tmp_path, "content-repository", "list", secret="wrong")
    assert "Unauthorized - Please ensure your client ID & secret are correct." in output
