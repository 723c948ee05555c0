"""The benchmark command runs, writes its JSON, and makes the table of docs/reference/benchmarks.md.

Figures are not asserted here: speed lives in the benchmarks, measured side by side, not in
timed tests. What is asserted is the shape of the output and that the table is generated.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from benchmarks.registry import discover
from benchmarks.table import readme_section, render, replace_section

from tests.counterparts import need_counterpart

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``python -m benchmarks ARGS`` from the repository's root, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", "benchmarks", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _benchmarks(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "bench.json"
    done = _run(*args, "--json", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    document: dict = json.loads(out.read_text())
    # What the command printed is the table made from the JSON it wrote.
    assert render(document) in done.stdout
    return document


@pytest.mark.slow
def test_a_quick_run_writes_a_result_with_rounds_and_a_verdict(tmp_path: Path) -> None:
    document = _benchmarks(tmp_path, "--quick", "--rounds", "3", "--only", "hubs_get")
    results = {r["name"]: r for r in document["results"]}
    assert set(results) == {"hubs_get", "hubs_get_pat"}
    for result in results.values():
        assert result["a"]["samples"] == result["b"]["samples"] == 3
        assert result["a"]["low"] <= result["a"]["median"] <= result["a"]["high"]
        assert result["ratio"]["low"] <= result["ratio"]["median"] <= result["ratio"]["high"]
        assert result["verdict"] in ("met", "missed", "unsteady")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["redaction", "cli_start"])
def test_the_redaction_and_cli_start_benchmarks_run_as_documented(
    tmp_path: Path, name: str
) -> None:
    document = _benchmarks(tmp_path, "--quick", "--rounds", "3", "--only", name)
    [result] = document["results"]
    assert result["name"] == name
    assert result["a"]["samples"] == 3
    assert result["a"]["low"] <= result["a"]["median"] <= result["a"]["high"]
    assert result["verdict"] in ("met", "missed", "unsteady")


@pytest.mark.slow
def test_the_serve_benchmark_loads_patgate_wiremock_and_the_bare_server(tmp_path: Path) -> None:
    need_counterpart(shutil.which("wrk") is not None, "needs wrk (apt-get install wrk)")
    from benchmarks import _wiremock

    not_run = _wiremock.missing()
    document = _benchmarks(tmp_path, "--quick", "--rounds", "1", "--only", "serve_vs_wiremock")
    results = {r["name"]: r for r in document["results"]}
    references = ("bare",) if not_run else ("wiremock", "bare")
    assert set(results) == {
        f"serve_{request}_c{n}_{reference}"
        for request in ("hubs", "graphql")
        for n in (1, 4, 16)
        for reference in references
    } | {"serve_hubs_scaling", "serve_graphql_scaling"}
    for result in results.values():
        assert result["a"]["samples"] == result["b"]["samples"] == 1
        assert result["a"]["median"] > 0
        assert result["b"]["median"] > 0
    first = document["results"][0]
    assert first["details"]["patgate_p99_ms"][0] >= first["details"]["patgate_p50_ms"][0]
    # Without Java or the jar, the run says why WireMock is missing, and the test does not
    # pass as if it had been measured.
    assert (f"WireMock not run: {not_run}" in first["note"]) is bool(not_run)
    need_counterpart(not not_run, f"WireMock {not_run}")


@pytest.mark.slow
def test_the_server_fronts_benchmark_loads_every_front_with_wrk(tmp_path: Path) -> None:
    need_counterpart(shutil.which("wrk") is not None, "needs wrk (apt-get install wrk)")
    # uvicorn and uvloop come with the bench extra; without them that front is left out.
    fronts = ["patgate", "stdlib", "h11"]
    uvicorn = all(importlib.util.find_spec(name) for name in ("uvicorn", "uvloop"))
    if uvicorn:
        fronts.append("uvicorn")
    document = _benchmarks(tmp_path, "--quick", "--rounds", "1", "--only", "server_fronts")
    results = {r["name"]: r for r in document["results"]}
    assert set(results) == {
        f"fronts_{front}_{request}_c{n}"
        for front in fronts
        for request in ("hubs", "graphql")
        for n in (1, 4)
    }
    for result in results.values():
        assert result["a"]["samples"] == result["b"]["samples"] == 1
        assert result["a"]["median"] > 0
        assert result["b"]["median"] > 0
    first = document["results"][0]["note"]
    assert ("Not run: uvicorn" in first) is not uvicorn


def _usage_error(*args: str) -> str:
    """What ``python -m benchmarks ARGS`` says on stderr, once it exited 2."""
    done = _run(*args, timeout=60)
    assert done.returncode == 2
    return done.stderr


def test_an_unknown_benchmark_name_is_a_usage_error() -> None:
    assert "no_such_thing" in _usage_error("--only", "no_such_thing")


def test_every_benchmark_module_is_found_once_in_run_order() -> None:
    names = [entry.name for entry in discover()]
    assert len(names) == len(set(names))
    assert {"world_scale", "serve_vs_wiremock", "hubs_get", "pat_cycle", "suite_wall"} <= set(names)


def test_the_readme_table_is_the_one_generated_from_the_saved_results() -> None:
    document = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    assert readme_section(ROOT / "docs/reference/benchmarks.md") == render(document), (
        "docs/reference/benchmarks.md's benchmark table differs from benchmarks/results.json: run "
        "python -m benchmarks --from-json benchmarks/results.json --readme"
    )


def test_the_readme_section_is_replaced_between_its_markers() -> None:
    text = (ROOT / "docs/reference/benchmarks.md").read_text(encoding="utf-8")
    replaced = replace_section(text, "NEW TABLE")
    assert replaced.count("NEW TABLE") == 1
    assert replaced.split("NEW TABLE")[0].endswith("-->\n")
    assert len(replaced) < len(text) + 20


@pytest.mark.slow
def test_the_embedded_run_benchmark_times_both_trees_from_their_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # This tree stands in for the previous release: a folder holding src/patgate.
    monkeypatch.setenv("PATGATE_BASELINE", str(ROOT))
    document = _benchmarks(tmp_path, "--quick", "--rounds", "1", "--only", "embedded_run")
    [result] = document["results"]
    assert result["name"] == "embedded_run"
    assert result["a"]["samples"] == result["b"]["samples"] == 1
    assert result["details"]["baseline"] == str(ROOT)
    assert result["verdict"] in ("met", "missed", "unsteady")


def test_a_partial_run_merged_replaces_its_rows_and_keeps_the_others() -> None:
    from benchmarks.table import merge

    saved = json.loads((ROOT / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    names = [row["name"] for row in saved["results"]]
    first = saved["results"][0]
    partial = {
        "command": "python -m benchmarks --only x",
        "machine": {"cpus": 2},
        "results": [{**first, "note": "new figures"}, {**first, "name": "brand_new", "note": ""}],
        "skipped": {"wrk_thing": "no wrk"},
    }
    merged = merge(saved, partial)
    assert [row["name"] for row in merged["results"]] == [*names, "brand_new"]
    assert merged["results"][0]["note"] == (
        "new figures (figures of `python -m benchmarks --only x`, 2 CPUs)"
    )
    assert merged["results"][1:-1] == saved["results"][1:]
    assert merged["skipped"]["wrk_thing"] == "no wrk"
    assert merged["command"] == saved["command"]
    render(merged)  # still a table


def test_merge_without_the_saved_results_is_a_usage_error() -> None:
    assert "--merge needs --json PATH" in _usage_error("--only", "hubs_get", "--merge")


@pytest.mark.slow
def test_the_merge_command_replaces_only_the_rows_it_ran(tmp_path: Path) -> None:
    saved = tmp_path / "results.json"
    shutil.copyfile(ROOT / "benchmarks" / "results.json", saved)
    before = json.loads(saved.read_text(encoding="utf-8"))
    command = ["--quick", "--rounds", "3", "--only", "cli_start", "--json", str(saved), "--merge"]
    done = _run(*command)
    assert done.returncode == 0, done.stdout + done.stderr
    after = json.loads(saved.read_text(encoding="utf-8"))
    assert [row["name"] for row in after["results"]] == [row["name"] for row in before["results"]]
    for old, new in zip(before["results"], after["results"], strict=True):
        if new["name"] == "cli_start":
            assert new["a"]["samples"] == 3
            assert "--only cli_start" in new["note"]
        else:
            assert new == old
    # The printed table is the merged one: every saved row, not only the one run again.
    assert render(after) in done.stdout
