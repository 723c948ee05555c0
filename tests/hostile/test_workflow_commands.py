"""A hostile deployment, scenario file or waivers file cannot drive the GitHub runner: with
``GITHUB_ACTIONS=true``, every workflow command form (each after each kind of line break)
that the target answers, or a scenario or waiver holds, goes through ``patgate run``
(failing checks print the answer), ``calibrate``, ``compare``, ``cleanup`` and ``fuzz``,
and the output, read as the runner reads it, runs no command but patgate's own: its
annotations, which it still prints and the runner still reads, and its stop-commands
blocks. Each command of ``patgate run`` that exits non-zero says why in an annotation."""

from __future__ import annotations

import contextlib
import io
import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from patgate.cli import main
from patgate.guards import untrusted_text
from patgate.runner.connection.config import TargetConfig
from patgate.runner.custody.ledger import Ledger, TargetIdentity
from patgate.wire.messages import WireRequest
from tests.actions_runner import BREAK_KINDS, COMMAND_FORMS, RunnerView, read_commands

from .cases import _body, _rewrite, _static
from .server import Misbehaviour, Server, is_graphql, is_listing, is_token

TIMEOUTS = ("--connect-timeout", "2", "--read-timeout", "3")

GATE = """\
id: token-teapot
title: Expects a status no deployment answers
rules: [TOKEN-OK]
steps:
  - token: {client_id: "${client_id}", client_secret: "${client_secret}",
            grant_type: client_credentials}
    expect:
      - status: 418
"""


def every_form(form: str) -> str:
    """``form`` after each kind of line break."""
    return "".join(brk + form for brk in BREAK_KINDS)


EVERYTHING = "".join(every_form(form) for form in COMMAND_FORMS)
"""Every form after every break, in one text."""


@pytest.fixture(autouse=True)
def _on_a_runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "step-summary.txt"))
    for key in ("PATGATE_BASE_URL", "PATGATE_AUTH_URL", "PATGATE_ADMIN_TOKEN"):
        monkeypatch.delenv(key, raising=False)


def _patgate(*argv: str) -> tuple[int, str]:
    """``patgate ARGV`` in this process: its exit code, stdout then stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue() + err.getvalue()


def _only_own(output: str) -> RunnerView:
    """The runner's view of ``output``, after checking it ran no foreign command, even
    without the stop-commands blocks (the escapes hold on their own)."""
    view = read_commands(output)
    assert view.foreign() == [], output
    unblocked = read_commands(output, honour_stops=False)
    assert unblocked.foreign() == [], output
    assert unblocked.annotations() == view.annotations(), "no forged annotation either"
    assert view.open_block is None, "every stop-commands block is resumed"
    return view


@contextlib.contextmanager
def _serving(case: Misbehaviour, world: Path) -> Iterator[Server]:
    with Server(case) as server:
        server.write_world(world)
        yield server


def _plain_text(text: str) -> Misbehaviour:
    body = text.encode("utf-8")
    return Misbehaviour(
        "answers-commands",
        _body(body, b"Content-Type: text/plain; charset=utf-8\r\n"),
        is_token,
        times=1000,
    )


@pytest.mark.parametrize("form", COMMAND_FORMS, ids=repr)
def test_run_prints_a_hostile_answer_without_a_command_and_its_own_annotations(
    form: str, tmp_path: Path
) -> None:
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "gate.yaml").write_text(GATE, encoding="utf-8")
    with _serving(_plain_text(every_form(form)), tmp_path / "w.json") as server:
        code, output = _patgate(
            "run", "--world", "w.json", "--scenarios", "ci/gate.yaml", *TIMEOUTS
        )
    assert server.spoiled, "the target answered the hostile text"
    assert code == 1, output
    assert f"{form[-4:]}" in output, "the answer is shown (escaped)"
    view = _only_own(output)
    assert view.names() == ["stop-commands", "error", "error"]
    own, verdict = view.annotations()
    assert own.properties == {"file": "ci/gate.yaml", "line": "1", "title": "TOKEN-OK"}
    assert verdict.properties == {"title": "patgate run"}
    assert verdict.data.startswith("exit 1: a gate rule failed")


def _hostile_scenario(folder: Path) -> None:
    text = json.dumps(EVERYTHING)  # a JSON string is a YAML double-quoted scalar
    scenario = GATE.replace(
        "title: Expects a status no deployment answers", f"title: {text}"
    ).replace("  - token:", f"  - name: {text}\n    token:")
    (folder / "ci").mkdir()
    (folder / "ci" / "gate.yaml").write_text(scenario, encoding="utf-8")
    waivers = (
        "waivers:\n  - rule: TOKEN-OK\n    expires: 2001-01-01\n"
        f"    reason: {json.dumps('expired ' + EVERYTHING)}\n"
    )
    (folder / "waivers.yaml").write_text(waivers, encoding="utf-8")


def _run_hostile_files() -> tuple[int, str]:
    return _patgate("run", "--scenarios", "ci/gate.yaml", "--waivers", "waivers.yaml")


def test_a_hostile_scenario_and_waiver_reach_no_runner_command(tmp_path: Path) -> None:
    _hostile_scenario(tmp_path)
    code, output = _run_hostile_files()
    assert code == 1, output
    assert "waiver expired" in output
    view = _only_own(output)
    assert [c.name for c in view.annotations()] == ["error", "error"]
    assert view.annotations()[0].properties["title"] == "TOKEN-OK"
    summary = (tmp_path / "step-summary.txt").read_text(encoding="utf-8")
    assert read_commands(summary).commands == []
    waiver_lines = [line for line in summary.split("\n") if line.startswith("- waiver")]
    assert len(waiver_lines) == 1, "the reason stays on its line of the step summary"


def test_the_twin_without_the_neutraliser_the_runner_reads_hostile_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same run with :mod:`patgate.guards.untrusted_text`'s escapes turned off: the runner
    would read the scenario's and the waiver's commands (so the test above can fail)."""
    never = untrusted_text.re.compile("(?!)")
    monkeypatch.setattr(untrusted_text, "_UNPRINTABLE", never)
    monkeypatch.setattr(untrusted_text, "_IGNORABLE", never)
    monkeypatch.setattr(untrusted_text, "_defused", lambda line: line)
    _hostile_scenario(tmp_path)
    _code, output = _run_hostile_files()
    assert {"set-output", "add-mask"} <= {c.name for c in read_commands(output).foreign()}


def _refusing(message: str) -> Misbehaviour:
    """Answers a GraphQL query sent without a token with ``message`` as its refusal."""

    def anonymous(request: WireRequest) -> bool:
        return is_graphql(request) and request.header("authorization") is None

    def change(obj: dict[str, object]) -> dict[str, object]:
        return {**obj, "message": message} if "message" in obj else obj

    return Misbehaviour("refusal-commands", _rewrite(change), anonymous, times=1000)


@pytest.mark.parametrize("command", ["compare", "calibrate"])
def test_calibrate_and_compare_print_a_hostile_refusal_without_a_command(
    command: str, tmp_path: Path
) -> None:
    extra = ["--out", "profile.yaml"] if command == "calibrate" else []
    with _serving(_refusing(EVERYTHING), tmp_path / "w.json") as server:
        code, output = _patgate(
            command, "--world", "w.json", "--ledger", "ledger.jsonl", *TIMEOUTS, *extra
        )
    assert server.spoiled, "the target answered the hostile refusal"
    assert code in (0, 1), output
    assert "refusal_messages.list_tokens.unauthenticated" in output
    assert "set-output" in output, "the answer is shown (escaped)"
    view = _only_own(output)
    assert view.names() == ["stop-commands"]


def test_cleanup_prints_a_hostile_id_without_a_command(tmp_path: Path) -> None:
    failing = Misbehaviour(
        "listing-fails",
        _static(b"HTTP/1.1 500 X\r\nContent-Length: 2\r\n\r\n{}"),
        is_listing,
        times=1000,
    )
    with _serving(failing, tmp_path / "w.json") as server:
        ledger = Ledger(
            tmp_path / "ledger.jsonl",
            "r",
            target=TargetIdentity.of(TargetConfig(server.fake.world)),
        )
        name = ledger.next_name()
        ledger.intend(name, "admin_token")
        ledger.confirm(name, EVERYTHING)  # the id a hostile create answered
        code, output = _patgate(
            "cleanup", "--world", "w.json", "--ledger", "ledger.jsonl", *TIMEOUTS
        )
    assert code == 1, output
    assert f"left: {name} (" in output
    assert "set-output" in output, "the id is shown (escaped)"
    assert _only_own(output).names() == []


def test_fuzz_prints_a_hostile_failure_without_a_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from patgate.fuzz.report import FuzzFailure, FuzzReport

    report = FuzzReport(target="the fake", seed=1, max_examples=1, notes=[EVERYTHING])
    report.add_failure(
        FuzzFailure("query viewer" + EVERYTHING, "server_error", EVERYTHING, 500, EVERYTHING)
    )
    engine = types.ModuleType("patgate.fuzz.engine")
    engine.FuzzOptions = lambda **kwargs: kwargs  # type: ignore[attr-defined]
    engine.fuzz_fake = lambda options: report  # type: ignore[attr-defined]
    engine.fuzz_target = lambda config, options: report  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "patgate.fuzz.engine", engine)
    code, output = _patgate("fuzz")
    assert code == 1, output
    assert "set-output" in output
    assert _only_own(output).names() == ["stop-commands"]


@pytest.mark.parametrize(
    ("argv", "code", "why"),
    [
        (["--scenario", "token-ok", "--rule", "PAT-NOPE"], 2, "exit 2: unknown rule"),
        (["--scenario", "auth-required", "--require", "PAT-CAP"], 4, "exit 4: a gate rule"),
    ],
)
def test_every_failing_exit_of_run_is_an_error_annotation_saying_why(
    argv: list[str], code: int, why: str
) -> None:
    exit_code, output = _patgate("run", *argv)
    assert exit_code == code, output
    (annotation,) = _only_own(output).annotations()
    assert annotation.name == "error"
    assert annotation.properties == {"title": "patgate run"}
    assert annotation.data.startswith(why)


def test_an_unreachable_target_and_a_bug_are_error_annotations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = tmp_path / "w.json"
    with Server(None) as server:
        server.write_world(world)
    code, output = _patgate("run", "--world", "w.json", "--scenario", "auth-required", *TIMEOUTS)
    assert code == 3, output
    (annotation,) = _only_own(output).annotations()
    assert annotation.data.startswith("exit 3: the target did not answer")

    from patgate.commands import run

    def broken(*args: object) -> object:
        raise RuntimeError("a bug before any target")

    monkeypatch.setattr(run, "_ledgers", broken)
    code, output = _patgate("run", "--scenario", "token-ok")
    assert code == 5, output
    (annotation,) = _only_own(output).annotations()
    assert annotation.data.startswith("exit 5: internal error")
