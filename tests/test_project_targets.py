"""Named targets of ``[tool.patgate.targets]``: ``patgate run`` checks each in turn, each
with the secrets of its own ``PATGATE_<NAME>_*`` variables; the shared ``PATGATE_*`` ones
and another target's never reach it."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from patgate.cli import main
from patgate.commands.project_config import named_targets
from patgate.errors import UsageError
from patgate.guards.project_file import find_project_config
from patgate.harness import Fake

TARGETS = """\
[tool.patgate]
rule = ["TOKEN-OK"]
report = ["json:out/r.json"]
profile = "no-such-profile.yaml"  # the embedded fake's: not read for a live target

[tool.patgate.targets.staging]
world = "ci/staging.json"

[tool.patgate.targets.prod-eu]
world = "ci/prod.json"
"""


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Fake]]:
    """Two deployments (in-process fakes with secrets of their own) named by a project's
    targets; their world files hold no client secret. The test runs in the project."""
    urls = {
        "staging": {
            "base_url": "https://staging.example",
            "auth_url": "https://auth.staging.example",
        },
        "prod": {"base_url": "https://prod.example", "auth_url": "https://auth.prod.example"},
    }
    (tmp_path / "ci").mkdir()
    (tmp_path / "pyproject.toml").write_text(TARGETS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for variable in ("PATGATE_CLIENT_SECRET", "PATGATE_BASE_URL", "PATGATE_AUTH_URL"):
        monkeypatch.delenv(variable, raising=False)
    with ExitStack() as stack:
        started = {name: stack.enter_context(Fake(urls=url)) for name, url in urls.items()}
        for name, fake in started.items():
            world = {key: value for key, value in fake.world.items() if key != "client_secret"}
            (tmp_path / "ci" / f"{name}.json").write_text(json.dumps(world), encoding="utf-8")
        yield started


def _per_target(report: Path) -> dict[str, dict[str, str]]:
    document = json.loads(report.read_text(encoding="utf-8"))
    return {
        target["world"]: {rule["id"]: rule["outcome"] for rule in target["rules"]}
        for target in document["targets"]
    }


def test_each_named_target_gets_its_own_secret_and_never_the_shared_one(
    fakes: dict[str, Fake], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATGATE_STAGING_CLIENT_SECRET", fakes["staging"].world["client_secret"])
    monkeypatch.setenv("PATGATE_PROD_EU_CLIENT_SECRET", fakes["prod"].world["client_secret"])
    monkeypatch.setenv("PATGATE_CLIENT_SECRET", "shared-secret-of-no-target")
    assert main(["run"]) == 0
    out = capsys.readouterr().out
    assert "== target 1 of 2: staging ==" in out
    assert "== target 2 of 2: prod-eu ==" in out
    outcomes = _per_target(Path("out/r.json"))
    assert outcomes["staging"]["TOKEN-OK"] == "passed"
    assert outcomes["prod-eu"]["TOKEN-OK"] == "passed"


def test_a_target_never_reads_another_targets_secret(
    fakes: dict[str, Fake], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both variables hold staging's secret: prod-eu's own, wrong for it, is the one it uses.
    staging = fakes["staging"].world["client_secret"]
    monkeypatch.setenv("PATGATE_STAGING_CLIENT_SECRET", staging)
    monkeypatch.setenv("PATGATE_PROD_EU_CLIENT_SECRET", staging)
    assert main(["run"]) == 1
    outcomes = _per_target(Path("out/r.json"))
    assert outcomes["staging"]["TOKEN-OK"] == "passed"
    assert outcomes["prod-eu"]["TOKEN-OK"] == "failed"


def test_the_shared_variable_does_not_stand_in_for_a_missing_one(
    fakes: dict[str, Fake], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The twin of the first test: the right secret, but in the shared variable only.
    monkeypatch.setenv("PATGATE_CLIENT_SECRET", fakes["staging"].world["client_secret"])
    monkeypatch.setenv("PATGATE_PROD_EU_CLIENT_SECRET", fakes["prod"].world["client_secret"])
    main(["run"])
    outcomes = _per_target(Path("out/r.json"))
    assert outcomes["staging"]["TOKEN-OK"] == "not_checked"  # it has no client secret
    assert outcomes["prod-eu"]["TOKEN-OK"] == "passed"


def test_target_selects_one_and_its_name_labels_the_report(
    fakes: dict[str, Fake], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATGATE_PROD_EU_CLIENT_SECRET", fakes["prod"].world["client_secret"])
    assert main(["run", "--target", "prod-eu"]) == 0
    assert "against https://prod.example" in capsys.readouterr().out
    document = json.loads(Path("out/r.json").read_text(encoding="utf-8"))
    assert document["target"] == "https://prod.example"


def test_a_world_flag_runs_as_without_the_targets(
    fakes: dict[str, Fake], monkeypatch: pytest.MonkeyPatch
) -> None:
    world = {**fakes["staging"].world}
    Path("full.json").write_text(json.dumps(world), encoding="utf-8")
    monkeypatch.setenv("PATGATE_STAGING_CLIENT_SECRET", "not-read-for-a-world-flag")
    assert main(["run", "--world", "full.json"]) == 0


def test_a_world_flag_wins_over_a_configured_target_selection(
    fakes: dict[str, Fake], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = Path("pyproject.toml").read_text(encoding="utf-8")
    Path("pyproject.toml").write_text(
        text.replace("[tool.patgate]\n", '[tool.patgate]\ntarget = ["staging"]\n', 1), "utf-8"
    )
    Path("full.json").write_text(json.dumps(fakes["prod"].world), encoding="utf-8")
    assert main(["run", "--world", "full.json"]) == 0
    assert json.loads(Path("out/r.json").read_text(encoding="utf-8"))["target"] == (
        "https://prod.example"
    )


def test_target_without_a_configuration_is_a_usage_error(tmp_path: Path) -> None:
    args = argparse.Namespace(world=None, target=["staging"], project=None)
    with pytest.raises(UsageError, match=r"no pyproject.toml with \[tool.patgate.targets\]"):
        named_targets(args, {})


def _args(**given: object) -> argparse.Namespace:
    keys = {"world": None, "target": None, "base_url": None, "project": find_project_config(Path())}
    return argparse.Namespace(**{**keys, **given})


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"target": ["stagin"]}, "names no target 'stagin'; did you mean 'staging'?"),
        ({"target": ["staging"], "world": [Path("x.json")]}, "--target and --world"),
        ({"target": ["staging"], "base_url": "https://x.example"}, "--target and --base-url"),
    ],
)
def test_a_wrong_selection_is_a_usage_error(
    fakes: dict[str, Fake], given: dict[str, object], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        named_targets(_args(**given), {})


def test_a_target_with_nothing_to_reach_is_a_usage_error(
    fakes: dict[str, Fake], tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.patgate.targets.empty]\n", "utf-8")
    with pytest.raises(UsageError, match="set PATGATE_EMPTY_BASE_URL"):
        named_targets(_args(), {"PATGATE_BASE_URL": "https://shared.example"})
    found = named_targets(_args(), {"PATGATE_EMPTY_BASE_URL": "https://empty.example"})
    assert found is not None
    assert [(name, config.text("base_url")) for name, config in found] == [
        ("empty", "https://empty.example")
    ]


@pytest.mark.parametrize(
    ("label", "named", "said"),
    [
        (
            "staging",
            True,
            "`patgate cleanup --ledger l.jsonl` deletes them (with the target's world file, "
            "and its PATGATE_STAGING_* variables as PATGATE_*)",
        ),
        ("ci/staging.json", False, "`patgate cleanup --world ci/staging.json --ledger l.jsonl`"),
    ],
)
def test_a_named_targets_leftovers_are_explained_with_its_own_variables(
    capsys: pytest.CaptureFixture[str], label: str, named: bool, said: str
) -> None:
    from patgate.commands.run import _explain
    from patgate.runner.results.events import RunFinished, Tallies

    finished = RunFinished("r", (), (), 1, 0.0, tallies=Tallies(tokens_leaked=2))
    _explain(label, None, Path("l.jsonl"), finished, named)
    assert said in capsys.readouterr().err


def test_a_profile_on_the_command_line_is_still_refused_for_live_targets(
    fakes: dict[str, Fake], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--profile", "no-such-profile.yaml"]) == 2
    assert "--profile shapes the embedded fake" in capsys.readouterr().err
