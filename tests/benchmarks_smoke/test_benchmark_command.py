"""The README's benchmark command runs and writes its JSON (figures are not asserted here:
speed lives in the benchmarks, measured side by side, not in timed tests)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_python_m_benchmarks_writes_a_result_per_benchmark(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "--quick",
            "--only",
            "hubs_get,loopback",
            "--no-suite",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    results = {r["name"]: r for r in json.loads(out.read_text())["results"]}
    assert set(results) == {"hubs_get", "loopback"}
    for result in results.values():
        assert result["a"]["median"] > 0
        assert result["b"]["median"] > 0
        assert isinstance(result["met"], bool)
