"""README.md and the site's pages promise only what runs: their commands and examples are executed
here or in CI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from patgate.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SITE_PAGES = sorted(
    path
    for folder in ("tutorials", "how-to", "explanation")
    for path in (ROOT / "docs" / folder).glob("*.md")
)
"""The site's prose pages, where the README's sections moved."""
SCENARIO_PAGE = ROOT / "docs/tutorials/live-runner.md"
GATE_PAGE = ROOT / "docs/how-to/waivers-and-targets.md"


def _block_after(heading: str, language: str, page: Path) -> str:
    section = page.read_text(encoding="utf-8").split(f"\n{heading}\n", 1)[1]
    match = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert match, f"no {language} block under {heading!r}"
    return match.group(1)


def test_the_readme_opens_with_the_two_commands_that_ci_executes() -> None:
    first_block = re.search(r"```sh\n(.*?)```", README, re.DOTALL)
    assert first_block
    assert README.index("```sh") < README.index("\n## ")
    setup_and_run, tests = first_block.group(1).strip().splitlines()
    assert "pip install" in setup_and_run
    assert setup_and_run.endswith("patgate run")
    assert "pytest" in tests
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "readme_command 1" in ci
    assert "readme_command 2" in ci


def test_the_scenario_example_loads_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = _block_after("## Writing a scenario", "yaml", SCENARIO_PAGE)
    (tmp_path / "mine.yaml").write_text(scenario)
    assert main(["run", "--scenarios", str(tmp_path)]) == 0
    assert "my-admin-lists-tokens" in capsys.readouterr().out


def _help_texts() -> str:
    """Every ``--help`` a README flag may come from: patgate, the benchmarks, the plugin."""
    import contextlib
    import io
    import subprocess
    import sys

    from patgate.cli import COMMANDS, build_parser

    parser = build_parser()
    texts = [parser.format_help()]
    for name in COMMANDS:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
            parser.parse_args([name, "--help"])
        texts.append(out.getvalue())
    for module in ("benchmarks", "benchmarks.load", "pytest"):
        texts.append(
            subprocess.run(
                [sys.executable, "-m", module, "--help"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
                timeout=60,
            ).stdout
        )
    return "\n".join(texts)


def test_every_flag_the_readme_names_exists() -> None:
    assert SITE_PAGES, "the site's pages are missing"
    texts = [README, *(page.read_text(encoding="utf-8") for page in SITE_PAGES)]
    # Lines that run the vendor's CLI name its flags, not patgate's.
    own = "\n".join(line for text in texts for line in text.splitlines() if "dc-cli " not in line)
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", own))
    helps = _help_texts()
    missing = sorted(flag for flag in named if not re.search(rf"{flag}\b", helps))
    assert missing == []


# -- In CI -----------------------------------------------------------------------------------


def _patgate_commands(script: str) -> list[list[str]]:
    """Each ``patgate ...`` command of a shell script, its arguments up to any redirection,
    pipe or background ``&``."""
    import shlex

    commands = []
    for line in script.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if not words or words[0] != "patgate":
            continue
        stop = next(
            (i for i, w in enumerate(words) if w in {">", "2>&1", "&", "|", ";", "&&", "||"}),
            len(words),
        )
        commands.append(words[1:stop])
    return commands


def _parses(argv: list[str]) -> None:
    from patgate.cli import build_parser

    try:
        build_parser().parse_args(argv)
    except SystemExit as error:  # argparse's way of refusing a flag
        raise AssertionError(f"patgate {' '.join(argv)} is refused") from error


def test_the_in_ci_command_uses_real_flags() -> None:
    commands = _patgate_commands(_block_after("## The gate command", "sh", GATE_PAGE))
    assert commands
    for argv in commands:
        _parses(argv)
    assert commands[0].count("--world") == 2


def test_the_in_ci_waiver_file_is_valid_and_waives_for_its_target(tmp_path: Path) -> None:
    import datetime

    from patgate.runner.results.events import Outcome, RuleResult
    from patgate.runner.results.waivers import apply_waivers, load_waivers
    from patgate.scenario import load_catalogue

    path = tmp_path / "waivers.yaml"
    path.write_text(_block_after("## Waivers", "yaml", GATE_PAGE), encoding="utf-8")
    waivers = load_waivers(path, load_catalogue())
    assert [w.rule for w in waivers] == ["PAT-CAP", "PAT-LAST-USED"]
    failed = RuleResult("PAT-CAP", "cap", "gate", Outcome.FAILED, ("pat-cap",))
    before = min(w.expires for w in waivers) - datetime.timedelta(days=1)
    for label, outcome in (("ci/production.yaml", Outcome.WAIVED), ("staging.yaml", None)):
        rules, _, _ = apply_waivers(waivers, [failed], [], label=label, display="", today=before)
        assert rules[0].outcome is (outcome or Outcome.FAILED)
    for name in ("report.schema.json", "waivers.schema.json"):
        assert f"specs/{name}" in GATE_PAGE.read_text(encoding="utf-8")
        assert (ROOT / "specs" / name).is_file()


def test_the_example_workflow_serves_the_fake_and_runs_the_gate_with_real_flags() -> None:
    import yaml

    assert "examples/github-actions.yml" in (ROOT / "docs/how-to/github-actions.md").read_text()
    workflow = yaml.safe_load((ROOT / "examples" / "github-actions.yml").read_text("utf-8"))
    steps = workflow["jobs"]["conformance"]["steps"]
    commands = [argv for step in steps for argv in _patgate_commands(step.get("run", ""))]
    assert [argv[0] for argv in commands] == ["serve"]
    [serve] = commands
    _parses(serve)
    served_world = serve[serve.index("--world") + 1]
    # The gate runs through the action at the root of patgate's checkout (action.yml).
    gate = next(step for step in steps if step.get("uses") == "./patgate")
    assert gate["with"]["worlds"].split() == [served_world]
    _parses(["run", "--world", served_world, *gate["with"]["args"].split()])
    serve_step = next(step for step in steps if "patgate serve" in step.get("run", ""))
    assert "&\n" in serve_step["run"], "the fake is served in the background"
    assert any(step.get("if") == "always()" for step in steps), "reports are kept on failure"


def test_the_compare_workflow_runs_on_a_schedule_with_real_flags() -> None:
    import yaml

    assert "examples/compare-schedule.yml" in (ROOT / "docs/how-to/profiles.md").read_text()
    workflow = yaml.safe_load((ROOT / "examples" / "compare-schedule.yml").read_text("utf-8"))
    assert workflow[True]["schedule"], "it runs on a schedule"  # YAML 1.1 reads `on` as True
    steps = workflow["jobs"]["compare"]["steps"]
    commands = [argv for step in steps for argv in _patgate_commands(step.get("run", ""))]
    assert [argv[0] for argv in commands] == ["compare"]
    for argv in commands:
        _parses(argv)
    [compare] = commands
    assert "--profile" in compare
    assert any(a.startswith("junit:") for a in compare), "drift shows as test results"
    assert any(step.get("if") == "always()" for step in steps), "reports are kept on failure"
