"""``patgate serve --explain`` logs every refusal's reason on stderr and sends it as an
answer header, for clients in other languages; without it, neither."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow


def _serve(tmp_path: Path, *flags: str) -> Iterator[tuple[dict[str, str], subprocess.Popen[str]]]:
    world_file = tmp_path / "world.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "patgate",
            "serve",
            "--port",
            "0",
            "--world",
            str(world_file),
            *flags,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("patgate serve: target file written"):
                break
        yield json.loads(world_file.read_text(encoding="utf-8")), process
    finally:
        process.terminate()  # the server this test started, by its handle
        process.communicate(timeout=20)  # reads and closes both pipes


@pytest.fixture
def explained(tmp_path: Path) -> Iterator[tuple[dict[str, str], subprocess.Popen[str]]]:
    yield from _serve(tmp_path, "--explain")


@pytest.fixture
def plain(tmp_path: Path) -> Iterator[tuple[dict[str, str], subprocess.Popen[str]]]:
    yield from _serve(tmp_path)


def test_explain_sends_the_reason_and_stderr_logs_it(
    explained: tuple[dict[str, str], subprocess.Popen[str]],
) -> None:
    world, process = explained
    answer = httpx.post(
        world["auth_url"] + "/oauth/token",
        data={"client_id": world["client_id"], "client_secret": world["client_secret"]},
        timeout=10,
    )
    assert answer.status_code == 400
    reason = answer.headers["X-Patgate-Reason"]
    assert reason.startswith("grant-type-missing: grant_type missing (fields received:")
    assert world["client_secret"] not in reason
    ok = httpx.get(
        world["base_url"] + "/v2/content/hubs",
        headers={"Authorization": "Bearer " + world["admin_token"]},
        timeout=10,
    )
    assert ok.status_code == 200
    assert "X-Patgate-Reason" not in ok.headers  # only refusals carry one
    process.terminate()
    _, err = process.communicate(timeout=20)
    assert "patgate serve: refused POST " in err
    assert "/oauth/token -> 400 grant-type-missing: grant_type missing" in err
    assert world["client_secret"] not in err


def test_without_explain_the_answer_carries_no_reason(
    plain: tuple[dict[str, str], subprocess.Popen[str]],
) -> None:
    world, process = plain
    answer = httpx.get(world["base_url"] + "/v2/content/hub", timeout=10)
    assert answer.status_code in (401, 404)
    assert "X-Patgate-Reason" not in answer.headers
    process.terminate()
    _, err = process.communicate(timeout=20)
    assert "refused" not in err
