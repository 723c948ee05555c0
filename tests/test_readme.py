"""README.md promises only what runs: its commands and its examples are executed here or in CI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from patgate.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(heading: str, language: str) -> str:
    section = README.split(f"\n{heading}\n", 1)[1]
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
    (tmp_path / "mine.yaml").write_text(_block_after("## Writing a scenario", "yaml"))
    assert main(["run", "--scenarios", str(tmp_path)]) == 0
    assert "my-admin-lists-tokens" in capsys.readouterr().out


def _help_texts() -> str:
    """Every ``--help`` a README flag may come from: patgate, the benchmarks, the plugin."""
    import contextlib
    import io
    import subprocess
    import sys

    from patgate.cli import build_parser

    parser = build_parser()
    texts = [parser.format_help()]
    for name in ("run", "rules", "serve", "cleanup", "fuzz"):
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
    # Lines that run the vendor's CLI name its flags, not patgate's.
    own = "\n".join(line for line in README.splitlines() if "dc-cli " not in line)
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", own))
    helps = _help_texts()
    missing = sorted(flag for flag in named if not re.search(rf"{flag}\b", helps))
    assert missing == []
