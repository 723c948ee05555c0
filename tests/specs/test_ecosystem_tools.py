"""The published specs as other people's tools read them, against ``patgate serve``.

schemathesis (``--checks all``, a fixed seed, a bounded number of examples per operation,
its stateful phase walking the OpenAPI links) drives a served fake with the content API's
spec, with a PAT and with a token the fake never issued, and the control API's spec with its
token; redocly and spectral lint both OpenAPI documents; openapi-spec-validator validates
them; graphql-inspector compares the schema the fake serves (by introspection) with
``specs/schema.graphql``. Each tool runs from its own virtualenv or npm folder
(``tests/specs/ecosystem_tools.py``), never from patgate's dependencies. Without them these
tests skip and say how to install them; CI installs them and fails on a skip.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from openapi_spec_validator import validate

from patgate.basics.resources import specs_dir
from tests.counterparts import need_counterpart
from tests.specs.ecosystem_tools import (
    INSTALL_COMMAND,
    NPM_BIN,
    SCHEMATHESIS,
    npm_installed,
    schemathesis_installed,
)

pytestmark = pytest.mark.slow

OPENAPI = ("openapi.yaml", "control-openapi.yaml")
SEED = "1"
EXAMPLES = "25"
"""Examples per operation and phase: about ten seconds a run on a quiet machine."""
TOOL_TIMEOUT = 300
# Node tools stay on the machine: no telemetry, no update check.
NODE_ENV = {
    **os.environ,
    "REDOCLY_TELEMETRY": "off",
    "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
    "NO_UPDATE_NOTIFIER": "1",
}


def _need_schemathesis() -> None:
    need_counterpart(
        schemathesis_installed(),
        f"needs schemathesis in .cache/tools/schemathesis-venv: run {INSTALL_COMMAND}",
    )


def _need_npm_tools() -> None:
    need_counterpart(
        npm_installed(),
        f"needs redocly, spectral and graphql-inspector in .cache/tools/npm (node 20 and "
        f"npm): run {INSTALL_COMMAND}",
    )


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    done = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TOOL_TIMEOUT,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, str]]:
    """A fresh ``patgate serve`` on loopback (a run's writes never reach the next run), and
    its target file."""
    world_file = tmp_path / "world.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "patgate", "serve", "--port", "0", "--world", str(world_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("patgate serve: listening on http://127.0.0.1:"), line
        for _ in range(2):  # the management page's line, then the target file's
            process.stdout.readline()
        yield json.loads(world_file.read_text(encoding="utf-8"))
    finally:
        process.terminate()  # the server this fixture started, by its handle
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def _schemathesis(spec: str, url: str, tmp_path: Path, *options: str) -> str:
    command = [
        str(SCHEMATHESIS),
        "run",
        str(specs_dir() / spec),
        "--url",
        url,
        "--checks",
        "all",
        "--max-examples",
        EXAMPLES,
        "--seed",
        SEED,
        "--generation-database",
        "none",
        "--workers",
        "1",
        "--no-color",
        *options,
    ]
    code, output = _run(command, tmp_path)  # its report folders go to tmp_path
    assert code == 0, f"schemathesis found problems with {spec}:\n{output[-12000:]}"
    return output


def _walked_links(output: str) -> None:
    """The stateful phase ran and followed links (so it did more than call each operation)."""
    assert re.search(r"✅ +Stateful", output), output[-4000:]
    covered = re.search(r"API Links: +(\d+) covered", output)
    assert covered is not None, output[-4000:]
    assert int(covered.group(1)) > 0


def test_schemathesis_finds_nothing_on_the_content_api_with_a_pat(
    served: dict[str, str], tmp_path: Path
) -> None:
    _need_schemathesis()
    output = _schemathesis(
        "openapi.yaml",
        served["base_url"],
        tmp_path,
        "--include-path-regex",
        "^/v2/content",
        "--header",
        f"Authorization: Bearer {served['admin_token']}",
    )
    _walked_links(output)


def test_schemathesis_finds_nothing_on_the_content_api_with_a_bad_token(
    served: dict[str, str], tmp_path: Path
) -> None:
    _need_schemathesis()
    _schemathesis(
        "openapi.yaml",
        served["base_url"],
        tmp_path,
        "--include-path-regex",
        "^/v2/content",
        "--header",
        "Authorization: Bearer not-a-token-this-fake-issued",
    )


def test_schemathesis_finds_nothing_on_the_token_endpoint(
    served: dict[str, str], tmp_path: Path
) -> None:
    _need_schemathesis()
    # Every other check runs; positive_data_acceptance would need valid client credentials,
    # which no generator guesses: a schema-valid form with made-up ones gets the documented
    # 400 invalid_client. (The links walk the content API, so no stateful phase here.)
    _schemathesis(
        "openapi.yaml",
        served["auth_url"],
        tmp_path,
        "--include-operation-id",
        "issueClientToken",
        "--exclude-checks",
        "positive_data_acceptance",
        "--phases",
        "examples,coverage,fuzzing",
    )


def test_schemathesis_finds_nothing_on_the_control_api(
    served: dict[str, str], tmp_path: Path
) -> None:
    _need_schemathesis()
    output = _schemathesis(
        "control-openapi.yaml",
        served["control_url"],
        tmp_path,
        "--header",
        f"Authorization: Bearer {served['control_token']}",
    )
    _walked_links(output)


@pytest.mark.parametrize("spec", OPENAPI)
def test_redocly_reports_no_error(spec: str, tmp_path: Path) -> None:
    _need_npm_tools()
    command = [str(NPM_BIN / "redocly"), "lint", "--format=json", str(specs_dir() / spec)]
    code, output = _run(command, tmp_path, NODE_ENV)
    report = json.loads(output[output.index("{") : output.rindex("}") + 1])
    errors = [p for p in report["problems"] if p["severity"] == "error"]
    assert errors == []
    assert (code, report["totals"]["errors"]) == (0, 0)


@pytest.mark.parametrize("spec", OPENAPI)
def test_spectral_reports_no_error(spec: str, tmp_path: Path) -> None:
    _need_npm_tools()
    ruleset = tmp_path / ".spectral.yaml"
    ruleset.write_text('extends: ["spectral:oas"]\n', encoding="utf-8")
    command = [
        str(NPM_BIN / "spectral"),
        "lint",
        "--ruleset",
        str(ruleset),
        "--format",
        "json",
        "--fail-severity",
        "error",
        str(specs_dir() / spec),
    ]
    code, output = _run(command, tmp_path, NODE_ENV)
    problems = json.loads(output[output.index("[") : output.rindex("]") + 1])
    errors = [p for p in problems if p["severity"] == 0]  # 0 is error, 1 warning
    assert errors == []
    assert code == 0, output[-4000:]


@pytest.mark.parametrize("spec", OPENAPI)
def test_openapi_spec_validator_accepts(spec: str) -> None:
    validate(yaml.safe_load((specs_dir() / spec).read_text(encoding="utf-8")))


def _inspector_diff(served: dict[str, str], schema: Path, tmp_path: Path) -> tuple[int, str]:
    command = [
        str(NPM_BIN / "graphql-inspector"),
        "diff",
        served["graphql_url"],
        str(schema),
        "--header",
        f"Authorization: Bearer {served['admin_token']}",
    ]
    return _run(command, tmp_path, NODE_ENV)


def test_graphql_inspector_finds_no_difference_from_the_served_schema(
    served: dict[str, str], tmp_path: Path
) -> None:
    _need_npm_tools()
    code, output = _inspector_diff(served, specs_dir() / "schema.graphql", tmp_path)
    assert code == 0, output
    assert "No changes detected" in output


def test_graphql_inspector_sees_a_changed_schema(served: dict[str, str], tmp_path: Path) -> None:
    # The twin: the same comparison against a schema differing in one argument's
    # nullability reports it, so "no difference" above is the tool's verdict, not silence.
    _need_npm_tools()
    published = (specs_dir() / "schema.graphql").read_text(encoding="utf-8")
    changed = published.replace("organizations(first: Int = 20", "organizations(first: Int!")
    assert changed != published
    schema = tmp_path / "changed.graphql"
    schema.write_text(changed, encoding="utf-8")
    code, output = _inspector_diff(served, schema, tmp_path)
    assert code != 0
    assert "first" in output
