"""The README's curl walk-through of the control API runs against a real ``patgate serve``."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.counterparts import need_counterpart

from .served import served

pytestmark = pytest.mark.slow

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _walkthrough() -> str:
    section = README.split("\n### Controlling the served fake\n", 1)[1]
    match = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert match, "no sh block under 'Controlling the served fake'"
    return match.group(1)


def test_the_curl_walkthrough_resets_removes_approves_advances_faults_and_reads_the_log(
    tmp_path: Path,
) -> None:
    need_counterpart(bool(shutil.which("curl") and shutil.which("jq")), "needs curl and jq on PATH")
    with served(tmp_path / "w.json"):
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", _walkthrough()],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert result.returncode == 0, result.stderr
    out = result.stdout  # the JSON answers run together: curl adds no newline
    assert out.startswith('{"reset":true}')
    assert '"status":"active"' in out  # the approved request
    assert '"offset_seconds":3600' in out
    assert '"retry_after":5' in out
    met, logged = out.rstrip("\n").rsplit("\n", 1)
    assert met.endswith("429")  # the approved PAT meets the fault
    assert re.fullmatch(r'\[429,"http://127\.0\.0\.1:\d+/v2/content/hubs"\]', logged)
