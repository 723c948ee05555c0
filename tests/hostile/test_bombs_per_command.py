"""Every command that reads a target meets a compression bomb as a failed request: ``run``,
``calibrate``, ``compare`` and ``cleanup`` end with their documented exit code, name the
refusal, print no traceback and leave no token behind (the hostile deployment answers
honestly once its spoiled answers are spent)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from patgate.cli import main
from patgate.runner.custody.ledger import Ledger

from . import bombs
from .server import Misbehaviour, Server, is_graphql, is_hubs, is_listing

# Each builds a gibibyte bomb once (about a second) and runs a whole command.
pytestmark = pytest.mark.slow

ONE_LAYER = "larger than 4194304 bytes"
TWO_LAYERS = "compressed more than once (Content-Encoding: gzip, gzip)"


def command(server: Server, folder: Path, *args: str) -> tuple[int, str]:
    """``patgate ARGS --world W --ledger L`` against ``server``; exit code and all output."""
    world = folder / "w.json"
    server.write_world(world)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main([*args, "--world", str(world), "--ledger", str(folder / "ledger.jsonl")])
    output = out.getvalue()
    assert "Traceback" not in output
    assert "internal error" not in output
    return code, output


def test_run_fails_the_steps_a_bomb_answers_and_deletes_what_it_made(tmp_path: Path) -> None:
    bombs.gzip_bomb(1024)
    report = tmp_path / "run.json"
    # Six: the run's own first questions (its GraphQL shapes, each writer's token count) are
    # read before any scenario, so the bomb must outlast them to reach a scenario's step.
    with Server(Misbehaviour("gib", bombs.GIB_GZIP, is_graphql, times=6)) as server:
        code, output = command(
            server, tmp_path, "run", "--allow-writes", "--report", f"json:{report}"
        )
        left = server.run_tokens()
    assert server.spoiled == 6
    assert code == 1, output  # a gate rule failed
    assert ONE_LAYER in report.read_text(encoding="utf-8")
    assert left == []


def test_calibrate_marks_what_a_bomb_hid_as_not_observed_and_writes_the_profile(
    tmp_path: Path,
) -> None:
    out = tmp_path / "profile.json"
    with Server(Misbehaviour("two", bombs.STACKED_GZIP, is_listing)) as server:
        code, output = command(server, tmp_path, "calibrate", "--allow-writes", "--out", str(out))
        left = server.run_tokens()
    assert server.spoiled == 2
    assert code == 0, output  # written
    assert "not observed masked_token.mask_character: the token listing probe stopped" in output
    assert TWO_LAYERS in output
    assert out.read_text(encoding="utf-8").strip(), "the profile is written"
    assert left == []


def test_compare_reports_what_a_bomb_hid_as_drift(tmp_path: Path) -> None:
    bombs.deflate_zeros(1024)
    with Server(Misbehaviour("raw", bombs.RAW_DEFLATE, is_listing)) as server:
        code, output = command(server, tmp_path, "compare", "--allow-writes")
        left = server.run_tokens()
    assert server.spoiled == 2
    assert code == 1, output  # drift
    assert ONE_LAYER in output
    assert left == []


def test_cleanup_leaves_what_it_cannot_verify_and_finishes_next_time(tmp_path: Path) -> None:
    """A listing the bomb answers cannot show the recorded name: nothing is deleted on
    faith (exit 1, one left); the next cleanup, answered honestly, deletes it (exit 0)."""
    with Server(Misbehaviour("listing", bombs.GZIP_LISTED_TWICE, is_listing)) as server:
        world = server.fake.default_world
        ledger = Ledger(tmp_path / "ledger.jsonl", "killed")
        name = ledger.next_name()
        ledger.intend(name, "admin_token")
        ledger.confirm(name, server.fake.request_token_via_ui(world.admin_id, name).record.id)
        first, output = command(server, tmp_path, "cleanup")
        met, kept = server.spoiled, server.run_tokens()
        second, again = command(server, tmp_path, "cleanup")
        left = server.run_tokens()
    assert met, "the first cleanup's listing met the bomb"
    assert first == 1, output  # something could not be deleted
    assert "could not be listed; not deleted" in output
    assert kept == [name]
    assert second == 0, again
    assert left == []


def test_fuzz_records_a_bomb_as_an_unread_answer_and_deletes_what_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("schemathesis", reason="needs the fuzz extra: pip install -e '.[fuzz]'")
    bombs.gzip_bomb(1024)
    monkeypatch.setenv("PATGATE_LEDGER", str(tmp_path / "ledger.jsonl"))
    with Server(Misbehaviour("gib", bombs.GIB_GZIP, is_hubs, times=2)) as server:
        world = tmp_path / "w.json"
        server.write_world(world)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            flags = ["--allow-writes", "--max-examples", "1", "--seed", "3"]
            code = main(["fuzz", "--world", str(world), *flags])
        left = server.run_tokens()
    output = out.getvalue()
    assert "Traceback" not in output
    assert server.spoiled == 2
    assert code == 1, output  # an answer broke the contract
    assert "unread_answer" in output
    assert ONE_LAYER in output
    assert left == []
