"""Schemas an editor can use: every shipped scenario names its schema on its first line, the
path resolves beside it (in the checkout and in the installed package alike), and
``patgate schema NAME`` prints each schema or where it lies."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

from patgate.basics.resources import scenarios_dir, specs_dir
from patgate.cli import main
from patgate.commands.schema import SCHEMAS

_MODELINE = re.compile(r"# yaml-language-server: \$schema=(?P<path>\S+)\n")


@pytest.mark.parametrize("path", sorted(scenarios_dir().glob("*.yaml")), ids=lambda p: p.name)
def test_each_shipped_scenario_names_a_schema_that_validates_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = _MODELINE.match(text)
    assert found, f"{path.name}: no yaml-language-server line first"
    schema_file = (path.parent / found["path"]).resolve()
    assert schema_file == (specs_dir() / "scenario.schema.json").resolve()
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    for document in yaml.safe_load_all(text):
        jsonschema.validate(document, schema)  # what an editor checks as one types


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_the_schema_command_prints_each_schema_and_its_path(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", name]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["$id"] == f"urn:patgate:schema:{name}"
    jsonschema.Draft202012Validator.check_schema(printed)
    assert main(["schema", name, "--path"]) == 0
    where = Path(capsys.readouterr().out.strip())
    assert where.is_file()
    assert json.loads(where.read_text(encoding="utf-8")) == printed


def test_an_unknown_schema_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["schema", "scenarios"])
    assert stop.value.code == 2
    assert "invalid choice: 'scenarios'" in capsys.readouterr().err
