"""``[tool.patgate]`` in pyproject.toml: settings kept with the project drive the commands
(the command line wins), a bad table is a usage error naming file, line and key, and the
published schema is the one the parsers generate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from patgate.basics.resources import specs_dir
from patgate.cli import build_parser, main
from patgate.commands.config_schema import config_schema
from patgate.guards.project_file import find_project_config

REGEN = "regenerate with `python -m patgate.commands.config_schema`"

SHORT_LIFETIME = "profile_version: 1\nclient_token: {expires_in: 120}\n"
"""A profile whose client tokens live 120 s: token-ok's advisory TOKEN-LIFETIME (300)
fails under it, and passes without it."""


def _project(tmp_path: Path, table: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project holding ``table`` in its pyproject.toml; the test runs from a folder below
    it (the file is found upward). The project's folder."""
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "demo"\n\n{table}', encoding="utf-8"
    )
    (project / "lifetime.yaml").write_text(SHORT_LIFETIME, encoding="utf-8")
    monkeypatch.chdir(project / "sub")
    return project


def _outcomes(report: Path) -> dict[str, str]:
    document = json.loads(report.read_text(encoding="utf-8"))
    return {rule["id"]: rule["outcome"] for rule in document["rules"]}


CONFIGURED = """\
[tool.patgate]
rule = ["TOKEN-OK"]
report = ["json:out/r.json"]
require = ["checkable"]
profile = "lifetime.yaml"
"""


def test_the_table_drives_run_with_no_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, CONFIGURED, monkeypatch)
    assert main(["run"]) == 0
    report = project / "out" / "r.json"  # relative to the pyproject.toml, not the cwd
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["gate_rules"]["required"] == ["checkable"]
    assert set(_outcomes(report)) == {
        "TOKEN-OK",
        "TOKEN-LIFETIME",
        "TOKEN-OAUTH-RESPONSE",
        "CLIENT-TOKEN-EXPIRY",
        "CONTENT-CLIENT-TOKEN",
    }
    assert _outcomes(report)["TOKEN-LIFETIME"] == "warning"  # the profile's 120 s
    assert "against embedded fake" in capsys.readouterr().out


def test_without_the_table_run_is_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The twin of the test above: the same flags on the command line, no table.
    project = _project(tmp_path, "[tool.other]\nx = 1\n", monkeypatch)
    assert main(["run", "--rule", "TOKEN-OK", "--report", "json:r.json"]) == 0
    assert _outcomes(project / "sub" / "r.json")["TOKEN-LIFETIME"] == "passed"
    assert not (project / "out").exists()


def test_a_flag_replaces_the_configured_list_and_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path, CONFIGURED, monkeypatch)
    argv = ["run", "--report", "json:other.json", "--require", "TOKEN-GRANT-TYPE"]
    assert main([*argv, "--rule", "TOKEN-GRANT-TYPE"]) == 0
    assert not (project / "out" / "r.json").exists()  # replaced, not appended to
    document = json.loads((project / "sub" / "other.json").read_text(encoding="utf-8"))
    assert document["gate_rules"]["required"] == ["TOKEN-GRANT-TYPE"]
    ran = set(_outcomes(project / "sub" / "other.json"))
    assert ran == {"TOKEN-GRANT-TYPE", "TOKEN-ERROR-BODY"}


def test_a_commands_table_wins_over_the_top_level(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = CONFIGURED + '\n[tool.patgate.run]\nreport = ["json:run-only.json"]\n'
    project = _project(tmp_path, table, monkeypatch)
    assert main(["run"]) == 0
    assert (project / "run-only.json").exists()
    assert not (project / "out" / "r.json").exists()


def test_a_table_for_another_command_does_not_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = CONFIGURED + '\n[tool.patgate.compare]\nreport = ["json:compare.json"]\n'
    project = _project(tmp_path, table, monkeypatch)
    assert main(["run"]) == 0
    assert (project / "out" / "r.json").exists()
    assert not (project / "compare.json").exists()


@pytest.mark.parametrize(
    ("table", "line", "where", "said"),
    [
        ("[tool.patgate]\nconcurency = 2\n", 5, "[tool.patgate]", "did you mean 'concurrency'?"),
        (
            "[tool.patgate.run]\nallow_writes = true\n",
            5,
            "[tool.patgate.run]",
            "did you mean 'allow-writes'?",
        ),
        ('[tool.patgate]\nconcurrency = "4"\n', 5, "[tool.patgate]", "must be a whole number"),
        ("[tool.patgate]\nreport = 3\n", 5, "[tool.patgate]", "must be a list or a string"),
        (
            "[tool.patgate]\nmax-wait = 0\n[tool.patgate.run]\nconcurrency = 0\n",
            7,
            "[tool.patgate.run]",
            "concurrency: must be 1 to 64, got 0",
        ),
        (
            '[tool.patgate.targets.staging]\nworld = "s.json"\nclient-secret = "x"\n',
            6,
            "[tool.patgate.targets.staging]",
            "set PATGATE_STAGING_CLIENT_SECRET instead",
        ),
        ("[tool.patgate]\nrule = [\n", 1, "", "is not valid TOML"),
    ],
)
def test_a_bad_table_is_a_usage_error_naming_file_line_and_key(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    table: str,
    line: int,
    where: str,
    said: str,
) -> None:
    project = _project(tmp_path, table, monkeypatch)
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    path = project / "pyproject.toml"
    assert (f"{path}:{line}: {where}" if where else f"{path} ") in err
    assert said in err
    assert "Traceback" not in err


def test_a_list_of_worlds_at_the_top_level_is_refused_for_a_command_taking_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(tmp_path, '[tool.patgate]\nworld = ["a.json", "b.json"]\n', monkeypatch)
    assert main(["cleanup"]) == 2
    assert "[tool.patgate.cleanup]: world must be a string" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "cleanup"])
def test_one_world_at_the_top_level_serves_every_command_from_the_files_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
) -> None:
    project = _project(tmp_path, '[tool.patgate]\nworld = "ci/missing.json"\n', monkeypatch)
    assert main([command]) == 2
    assert f"the world file {project / 'ci' / 'missing.json'}: cannot read" in (
        capsys.readouterr().err
    )


def test_the_search_passes_over_a_pyproject_without_the_table_and_stops_at_git(
    tmp_path: Path,
) -> None:
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    (outer / "pyproject.toml").write_text("[tool.patgate]\nstrict = true\n", "utf-8")
    (inner / "pyproject.toml").write_text('[project]\nname = "patgate-demo"\n', "utf-8")
    found = find_project_config(inner)
    assert found is not None
    assert found.path == outer / "pyproject.toml"
    assert found.settings("run") == {"strict": True}
    (inner / ".git").mkdir()  # the repository's root: nothing above it is read
    assert find_project_config(inner) is None


def test_the_published_schema_is_the_generated_one() -> None:
    published = json.loads((specs_dir() / "config.schema.json").read_text(encoding="utf-8"))
    assert published == config_schema(build_parser()), REGEN
    assert config_schema() == config_schema(build_parser())  # its own parser is the CLI's


def test_a_new_flag_is_a_new_key_and_a_type_without_schema_stops_the_generation() -> None:
    parser = build_parser()
    run = parser._subparsers._group_actions[0].choices["run"]  # type: ignore[union-attr]
    run.add_argument("--new-flag", action="append", type=Path)
    schema = config_schema(parser)
    list_or_one = schema["$defs"]["run"]["properties"]["new-flag"]["anyOf"]
    assert [part["type"] for part in list_or_one] == ["array", "string"]
    assert "new-flag" in schema["properties"]
    run.add_argument("--odd", type=complex)
    with pytest.raises(TypeError, match="--odd"):
        config_schema(parser)


def test_secret_flags_are_no_keys_of_the_schema() -> None:
    keys = set(config_schema(build_parser())["$defs"]["run"]["properties"])
    assert {"base-url", "client-id", "report"} <= keys
    assert not keys & {"client-secret", "admin-token", "control-token"}


def test_patgate_schema_config_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "config"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["title"] == "[tool.patgate] in pyproject.toml"


@pytest.mark.slow
def test_the_schema_regenerates_into_a_folder(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "patgate.commands.config_schema", str(tmp_path)], check=True
    )
    written = (tmp_path / "config.schema.json").read_text(encoding="utf-8")
    assert written == (specs_dir() / "config.schema.json").read_text(encoding="utf-8")
