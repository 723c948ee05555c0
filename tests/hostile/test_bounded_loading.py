"""Bounded loading: a scenario file or a target file that is too large, too deep, holds YAML
aliases, or refers a schema outside itself is a usage error (exit 2)
naming the file and the line, never a traceback or a crash."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from patgate.cli import main
from patgate.guards.supplied_files import MAX_DEPTH, MAX_SUPPLIED_BYTES

ALIAS_BOMB = "\n".join(
    f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]"
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
)
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + ALIAS_BOMB

SCENARIO = """\
id: custom
title: A custom scenario
rules: [CONTENT-CLIENT-TOKEN]
steps:
  - name: get a client token
    token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
    expect:
      - status: 200
      - {schema: SCHEMA, rule: CONTENT-CLIENT-TOKEN}
"""


def _patgate(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue() + err.getvalue()


def test_the_alias_bomb_is_small() -> None:
    assert len(ALIAS_BOMB.encode()) < 600


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        (ALIAS_BOMB, 1, "YAML anchors (&a) are not accepted"),
        ("id: x\nsteps: " + "[" * 1000 + "]" * 1000 + "\n", 2, f"deeper than {MAX_DEPTH}"),
        ("[" * 50_000 + "]" * 50_000, 1, f"deeper than {MAX_DEPTH}"),
        ("- " * 5000 + "x\n", 1, f"deeper than {MAX_DEPTH}"),
        ("x: '" + "a" * (MAX_SUPPLIED_BYTES + 10) + "'\n", None, "larger than 4 MiB"),
    ],
    ids=["alias-bomb", "1000-levels", "50000-levels", "block-nesting", "oversize"],
)
def test_a_hostile_scenario_file_is_a_usage_error_with_its_line(
    tmp_path: Path, text: str, line: int | None, problem: str
) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    code, output = _patgate("run", "--scenarios", str(path))
    assert code == 2, output
    assert (f"{path}:{line}:" if line else f"{path}:") in output
    assert problem in output
    assert "Traceback" not in output


@pytest.mark.parametrize(
    ("schema", "reference"),
    [
        ('{"$ref": "file:///etc/passwd"}', "file:///etc/passwd"),
        ('{"properties": {"a": {"$ref": "http://192.0.2.1/s.json"}}}', "http://192.0.2.1"),
        ('{"$ref": "other.json"}', "other.json"),
    ],
)
def test_a_schema_reference_outside_the_schema_is_refused_at_load(
    tmp_path: Path, schema: str, reference: str
) -> None:
    path = tmp_path / "custom.yaml"
    path.write_text(SCENARIO.replace("SCHEMA", schema), encoding="utf-8")
    code, output = _patgate("run", "--scenarios", str(path))
    assert code == 2, output
    assert f"{path}:" in output
    assert reference in output
    assert "Traceback" not in output


def test_a_schema_file_beside_the_scenario_may_not_refer_outside_either(tmp_path: Path) -> None:
    (tmp_path / "mine.json").write_text(json.dumps({"$ref": "file:///etc/passwd"}))
    path = tmp_path / "custom.yaml"
    path.write_text(SCENARIO.replace("SCHEMA", "mine.json"), encoding="utf-8")
    code, output = _patgate("run", "--scenarios", str(path))
    assert code == 2, output
    assert "file:///etc/passwd" in output


def test_pointers_inside_an_inline_schema_are_fine(tmp_path: Path) -> None:
    schema = '{"$defs": {"e": {"type": "object"}}, "$ref": "#/$defs/e"}'
    path = tmp_path / "custom.yaml"
    path.write_text(SCENARIO.replace("SCHEMA", schema), encoding="utf-8")
    code, output = _patgate("run", "--scenarios", str(path))
    assert code == 0, output


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("w.yaml", ALIAS_BOMB, 1),
        ("w.yaml", "auth_url: " + "[" * 50_000 + "]" * 50_000, 1),
        ("w.json", '{\n"auth_url":\n' + "[" * 1000 + "]" * 1000 + "}", 3),
        ("w.json", '{"auth_url": "' + "a" * (MAX_SUPPLIED_BYTES + 1) + '"}', None),
    ],
    ids=["yaml-alias-bomb", "yaml-50000-levels", "json-1000-levels", "oversize"],
)
def test_a_hostile_target_file_is_a_usage_error_with_its_line(
    tmp_path: Path, name: str, text: str, line: int | None
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, output = _patgate("run", "--world", str(path))
    assert code == 2, output
    assert (f"{path}:{line}:" if line else f"{path}:") in output
    assert "Traceback" not in output
