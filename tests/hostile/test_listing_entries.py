"""A live-like deployment whose every listing holds one malformed entry beside the run's own
tokens: ``patgate run`` and ``patgate calibrate`` report the entry by its index and field,
print no traceback, and still delete every token they made (the ledger shows nothing left)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from patgate.cli import main
from patgate.runner.custody.ledger import Ledger

from .server import Misbehaviour, Server, is_listing
from .test_hostile_server import TIMEOUTS, run_against
from .wrong_types import CUSTODY, rewrite

# Each case serves a deployment on loopback and runs the command against it.
pytestmark = pytest.mark.slow

ENTRIES = "data.viewer.personalAccessTokens"
MALFORMED = [
    ({"id": "odd-1", "name": ["patgate-x"]}, f"{ENTRIES}[1].name: expected text, got a list"),
    ({"id": 12, "name": "odd"}, f"{ENTRIES}[1].id: expected a non-empty text, got the number"),
    ({"name": "odd"}, f"{ENTRIES}[1].id: missing"),
    (None, f"{ENTRIES}[1]: expected an object, got null"),
    ("odd-1", f"{ENTRIES}[1]: expected an object, got the text 'odd-1'"),
]
KINDS = ["list-name", "number-id", "no-id", "null", "text"]


def _with_entry(entry: Any) -> Misbehaviour:
    """Every listing holds ``entry`` second (after the admin's own token)."""

    def change(body: Any) -> Any:
        viewer = (body.get("data") or {}).get("viewer") if isinstance(body, dict) else None
        if isinstance(viewer, dict) and isinstance(viewer.get("personalAccessTokens"), list):
            viewer["personalAccessTokens"].insert(1, entry)
        return body

    return Misbehaviour("listing-with-a-malformed-entry", rewrite(change), is_listing, times=10**6)


def _nothing_left(ledger: Path) -> None:
    (run,) = Ledger.load(ledger)
    counts = run.counts()
    assert counts["created"] >= 1, "the run's creates were proved by the entries that decode"
    assert counts["leaked"] == 0
    assert counts["deleted"] == counts["created"]


@pytest.mark.parametrize(("entry", "problem"), MALFORMED, ids=KINDS)
def test_run_reports_the_entry_and_deletes_its_tokens(
    entry: Any, problem: str, tmp_path: Path
) -> None:
    chosen = [flag for name in CUSTODY for flag in ("--scenario", name)]
    with Server(_with_entry(entry)) as server:
        code, output = run_against(server, tmp_path, "--concurrency", "1", *chosen)
        left = server.run_tokens()
    assert server.spoiled
    assert "Traceback" not in output
    assert "internal error" not in output
    assert code == 1, output
    report = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    messages = [f["message"] for s in report["scenarios"] for f in s["failures"]]
    assert any(problem in m and "never deleted nor taken as proof" in m for m in messages)
    assert left == [], "every token the run made was deleted"
    _nothing_left(tmp_path / "ledger.jsonl")


@pytest.mark.parametrize(("entry", "problem"), MALFORMED, ids=KINDS)
def test_calibrate_reports_the_entry_and_deletes_its_tokens(
    entry: Any, problem: str, tmp_path: Path
) -> None:
    with Server(_with_entry(entry)) as server:
        world = tmp_path / "w.json"
        server.write_world(world)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(
                [
                    "calibrate",
                    "--world",
                    str(world),
                    "--allow-writes",
                    *TIMEOUTS,
                    "--ledger",
                    str(tmp_path / "ledger.jsonl"),
                    "--out",
                    str(tmp_path / "profile.yaml"),
                ]
            )
        left = server.run_tokens()
    output = out.getvalue() + err.getvalue()
    assert server.spoiled
    assert "Traceback" not in output
    assert code == 1, output
    assert f"gate failure PAT-LIST-MASKED: a listed entry is not a token (left out): {problem}" in (
        err.getvalue()
    )
    assert "left on the target" not in output
    assert left == [], "every token the probes made was deleted"
    _nothing_left(tmp_path / "ledger.jsonl")
    assert (tmp_path / "profile.yaml").exists()
    assert "not observed listing_order" not in output, "the probes went on with the entries"
