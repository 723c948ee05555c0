"""What importing a part of patgate loads, each in a fresh interpreter.

The facade (``patgate/__init__.py``) hands its names out on first use, and no module below
it imports ``patgate`` itself, so importing the domain loads no HTTP, page or runner
module, and the CLI builds its parser without the subcommands' heavy parts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src"

PROBE = "import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))\n"


def _loaded(code: str) -> set[str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(SOURCE), *filter(None, [environment.get("PYTHONPATH")])]
    )
    completed = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(completed.stdout.splitlines()[-1]))


def _under(loaded: set[str], *roots: str) -> list[str]:
    return sorted(m for m in loaded if any(m == r or m.startswith(r + ".") for r in roots))


def test_import_patgate_loads_nothing_but_the_facade() -> None:
    loaded = _loaded("import patgate")
    assert _under(loaded, "patgate") == ["patgate"]
    assert _under(loaded, "httpx", "importlib.metadata") == []


def test_the_facade_still_hands_out_every_name() -> None:
    loaded = _loaded(
        "import patgate\n"
        "assert patgate.__version__\n"
        "assert all(getattr(patgate, name) is not None for name in patgate.__all__)"
    )
    assert "patgate.harness" in loaded


@pytest.mark.parametrize(
    "module",
    ["patgate.fake.deployment", "patgate.fake.world", "patgate.fake.state", "patgate.fake.faults"],
)
def test_the_domain_loads_no_http_page_or_runner(module: str) -> None:
    loaded = _loaded(f"import {module}")
    heavy = ("patgate.wire", "patgate.ui", "patgate.runner", "patgate.transports")
    assert _under(loaded, *heavy, "patgate.harness", "httpx", "requests") == []


def test_the_pytest_plugin_loads_no_graphql_for_a_project_without_the_fake() -> None:
    loaded = _loaded("import patgate.pytest_plugin")
    assert _under(loaded, "graphql", "patgate.fake", "patgate.wire", "patgate.runner") == []


def test_a_fake_answering_a_request_leaves_its_control_and_state_modules_out() -> None:
    # A test that calls no control operation (reset, users, the log's pages) does not pay
    # for importing them on its first fake.
    loaded = _loaded(
        "import httpx\n"
        "from patgate.harness import Fake\n"
        "with Fake() as fake:\n"
        "    w = fake.world\n"
        "    auth = {'Authorization': 'Bearer ' + w['admin_token']}\n"
        "    assert httpx.get(w['base_url'] + '/v2/content/hubs', headers=auth).status_code == 200"
    )
    assert "patgate.wire.app" in loaded
    control = ("patgate.wire.control_service", "patgate.wire.control_api", "patgate.ui")
    assert _under(loaded, *control, "patgate.fake.state", "patgate.fake.changes") == []


def test_the_cli_parser_leaves_the_subcommands_heavy_parts_out() -> None:
    loaded = _loaded("from patgate.cli import build_parser\nbuild_parser()")
    heavy = ("patgate.fake", "patgate.wire", "patgate.harness", "patgate.reporting")
    assert _under(loaded, *heavy, "patgate.commands.serve_state", "httpx", "yaml") == []
    assert _under(loaded, "importlib.metadata") == []  # the version is read on --version only


def test_the_version_is_shown_by_the_cli() -> None:
    environment = dict(os.environ, PYTHONPATH=str(SOURCE))
    completed = subprocess.run(
        [sys.executable, "-m", "patgate", "--version"],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    from patgate._version import __version__

    assert completed.stdout == f"patgate {__version__}\n"


def test_a_default_fake_answering_a_request_needs_no_yaml_parser() -> None:
    # The shipped default profile is JSON: the YAML parser's import is a fifth of what the
    # first test using the fake pays.
    loaded = _loaded(
        "import httpx, patgate\n"
        "with patgate.Fake() as fake:\n"
        "    world = fake.world\n"
        "    auth = {'Authorization': 'Bearer ' + world['admin_token']}\n"
        "    hubs = httpx.get(world['base_url'] + '/v2/content/hubs', headers=auth)\n"
        "    assert hubs.status_code == 200, hubs.text"
    )
    assert "patgate.harness" in loaded
    assert _under(loaded, "yaml", "difflib") == []


def test_a_session_without_scenarios_loads_no_reporting_or_scenario_module(
    tmp_path: Path,
) -> None:
    # pytest-xdist is installed here, so the plugin's worker controller is registered: its
    # summary imports the reporting modules only when scenarios ran.
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    pass\n", encoding="utf-8")
    (tmp_path / "conftest.py").write_text(
        "import json, sys\n"
        "def pytest_unconfigure(config):\n"
        "    with open('modules.json', 'w') as out:\n"
        "        json.dump(sorted(sys.modules), out)\n",
        encoding="utf-8",
    )
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(SOURCE), *filter(None, [environment.get("PYTHONPATH")])]
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plain.py"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = set(json.loads((tmp_path / "modules.json").read_text(encoding="utf-8")))
    assert "patgate.plugin.scenario_workers" in loaded  # the controller was there
    assert _under(loaded, "patgate.reporting", "patgate.scenario", "patgate.runner") == []
