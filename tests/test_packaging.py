"""The package works on its own: built, installed into a fresh virtual environment outside
the checkout, its commands and its pytest fixture run.

``python -m build`` makes the sdist, then the wheel from that sdist (as pip does with an
sdist), so a file the sdist forgets is missing from the wheel too. The wheel is installed
into a new virtual environment (no system site-packages) in a temporary folder, and every
command runs from there, so nothing from the checkout can leak in. Dependencies come from
the package index; pip's cache keeps a reinstall quick.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
DATA = {"specs": "patgate/_data/specs", "scenarios": "patgate/_data/scenarios"}
"""Folders of the checkout and where the wheel holds them."""

# Printed as JSON by the installed package, so the test reads paths rather than trusting them.
PROBE = """
import json
from pathlib import Path
import patgate
from patgate.basics.resources import scenarios_dir, specs_dir
print(json.dumps({
    "package": str(Path(patgate.__file__).resolve().parent),
    "specs": str(specs_dir()),
    "scenarios": str(scenarios_dir()),
}))
"""

DOWNSTREAM_TEST = """
import httpx


def test_a_downstream_project_uses_the_fixture(patgate_fake, patgate_world):
    hubs = patgate_world["base_url"] + "/v2/content/hubs"
    auth = {"Authorization": "Bearer " + patgate_world["admin_token"]}
    assert httpx.get(hubs, headers=auth).status_code == 200
    patgate_fake.remove_user(patgate_fake.default_world.admin_id)
    assert httpx.get(hubs, headers=auth).status_code == 403
"""


def _environment() -> dict[str, str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTEST_ADDOPTS"}
    }
    environment.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1")
    return environment


def _run(command: list[str], cwd: Path) -> str:
    result = subprocess.run(
        command,
        cwd=cwd,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, (
        f"{' '.join(command)} exited {result.returncode}\n"
        f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
    )
    return result.stdout


def _venv_bin(venv: Path, name: str) -> Path:
    folder = venv / ("Scripts" if os.name == "nt" else "bin")
    return folder / (f"{name}.exe" if os.name == "nt" else name)


@dataclass(frozen=True)
class Built:
    wheel: Path
    sdist: Path


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    folder: Path
    """A temporary folder outside the checkout, where every command runs."""

    def bin(self, name: str) -> Path:
        return _venv_bin(self.venv, name)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    outdir = tmp_path_factory.mktemp("dist")
    command = [sys.executable, "-m", "build", "--outdir", str(outdir)]
    # Without isolation the installed hatchling builds at once; otherwise build fetches it.
    if importlib.util.find_spec("hatchling") is not None:
        command.append("--no-isolation")
    _run([*command, str(ROOT)], cwd=outdir)
    (wheel,) = outdir.glob("patgate-*.whl")
    (sdist,) = outdir.glob("patgate-*.tar.gz")
    return Built(wheel, sdist)


@pytest.fixture
def installed(built: Built, tmp_path: Path) -> Installed:
    folder = tmp_path
    assert not folder.resolve().is_relative_to(ROOT)
    venv = folder / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=folder)
    # pytest for the downstream test below: a user's project brings its own.
    pip = [str(_venv_bin(venv, "python")), "-m", "pip", "install", "--quiet"]
    _run([*pip, str(built.wheel), "pytest"], cwd=folder)
    return Installed(built.wheel, venv, folder)


def _run_time_files() -> dict[str, str]:
    """Every file the package reads at run time: checkout path -> path inside the wheel."""
    files = {}
    for path in sorted((ROOT / "src" / "patgate").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[path.relative_to(ROOT).as_posix()] = path.relative_to(ROOT / "src").as_posix()
    for folder, inside in DATA.items():
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file():
                relative = path.relative_to(ROOT / folder).as_posix()
                files[f"{folder}/{relative}"] = f"{inside}/{relative}"
    return files


def test_the_sdist_and_the_wheel_built_from_it_hold_every_run_time_file(built: Built) -> None:
    expected = _run_time_files()
    assert "src/patgate/ui/assets/page.css" in expected  # the walk found the page's assets
    assert "specs/schemas/token-response.json" in expected
    assert "src/patgate/fake/default_profile.json" in expected
    assert "specs/profile.schema.json" in expected
    with tarfile.open(built.sdist) as sdist:
        top = built.sdist.name.removesuffix(".tar.gz")
        in_sdist = {name.removeprefix(f"{top}/") for name in sdist.getnames()}
    assert sorted(set(expected) - in_sdist) == []
    assert {"pyproject.toml", "README.md", "action.yml"} <= in_sdist  # the examples use it
    with zipfile.ZipFile(built.wheel) as wheel:
        in_wheel = set(wheel.namelist())
    assert sorted(set(expected.values()) - in_wheel) == []


def test_the_installed_wheel_runs_its_commands_and_fixture_outside_the_checkout(
    installed: Installed,
) -> None:
    """One test, so that pytest-xdist installs the wheel once: its data, ``patgate run``,
    ``patgate serve`` (start, one request, SIGTERM) and a downstream project's own test."""
    found = json.loads(_run([str(installed.bin("python")), "-c", PROBE], cwd=installed.folder))
    package = Path(found["package"])
    assert package.parent.name == "site-packages", package
    assert package.is_relative_to(installed.venv.resolve())
    assert Path(found["specs"]) == package / "_data" / "specs"
    assert Path(found["scenarios"]) == package / "_data" / "scenarios"
    # An editor opening an installed scenario finds its schema through its first line.
    shipped = Path(found["scenarios"]) / "pat-cap.yaml"
    modeline = shipped.read_text(encoding="utf-8").splitlines()[0]
    schema = modeline.removeprefix("# yaml-language-server: $schema=")
    assert (shipped.parent / schema).is_file(), modeline
    version = installed.wheel.name.split("-")[1]
    output = _run([str(installed.bin("patgate")), "--version"], cwd=installed.folder)
    assert output.strip() == f"patgate {version}"

    output = _run([str(installed.bin("patgate")), "run"], cwd=installed.folder)
    assert "exit 0: every gate rule passed" in output

    with _served(installed) as (process, world_file):
        world = _wait_for_world(process, world_file)
        hubs = httpx.get(
            world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": "Bearer " + world["admin_token"]},
            timeout=10,
        )
        assert hubs.status_code == 200
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0

    project = installed.folder / "downstream"
    project.mkdir()
    (project / "test_downstream.py").write_text(DOWNSTREAM_TEST, encoding="utf-8")
    output = _run(
        [str(installed.bin("python")), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
    )
    assert "1 passed" in output


@contextlib.contextmanager
def _served(installed: Installed) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    world_file = installed.folder / "world.json"
    process = subprocess.Popen(
        [str(installed.bin("patgate")), "serve", "--port", "0", "--world", str(world_file)],
        cwd=installed.folder,
        env=_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield process, world_file
    finally:
        if process.poll() is None:
            process.kill()  # the process this test started, by its handle
            process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()


def _wait_for_world(process: subprocess.Popen[str], world_file: Path) -> dict[str, str]:
    """The world file once it is whole (it is written in place, not renamed)."""
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        try:
            world: dict[str, str] = json.loads(world_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            time.sleep(0.05)
            continue
        if "admin_token" in world:
            return world
    stderr = process.stderr.read() if process.stderr and process.poll() is not None else ""
    pytest.fail(f"patgate serve wrote no whole world file within 60 s {stderr}")
