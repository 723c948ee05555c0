"""The wheel works on its own: specs, scenarios and the command are there after a plain install.

The wheel is built from this checkout and installed into a fresh virtual environment (no
system site-packages), so nothing from the checkout can leak in. Dependencies come from the
package index; pip's cache keeps a reinstall quick.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Printed as JSON by the installed package, so the test reads paths rather than trusting them.
PROBE = """
import json
from pathlib import Path
import patgate
from patgate.resources import scenarios_dir, specs_dir
print(json.dumps({
    "package": str(Path(patgate.__file__).resolve().parent),
    "specs": str(specs_dir()),
    "scenarios": str(scenarios_dir()),
}))
"""


def _run(command: list[str], cwd: Path) -> str:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}
    }
    environment.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1")
    result = subprocess.run(
        command,
        cwd=cwd,
        env=environment,
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


def _build_wheel(outdir: Path) -> Path:
    command = [sys.executable, "-m", "build", "--wheel", "--outdir", str(outdir)]
    # Without isolation the installed hatchling builds at once; otherwise build fetches it.
    if importlib.util.find_spec("hatchling") is not None:
        command.append("--no-isolation")
    _run([*command, str(ROOT)], cwd=outdir.parent)
    (wheel,) = outdir.glob("patgate-*.whl")
    return wheel


def _venv_bin(venv: Path, name: str) -> Path:
    folder = venv / ("Scripts" if os.name == "nt" else "bin")
    return folder / (f"{name}.exe" if os.name == "nt" else name)


@pytest.mark.slow
def test_installed_wheel_ships_its_data_and_command(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path / "dist")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    python = _venv_bin(venv, "python")
    _run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], cwd=tmp_path)

    found = json.loads(_run([str(python), "-c", PROBE], cwd=tmp_path))
    package = Path(found["package"])
    assert package.parent.name == "site-packages", package
    assert package.is_relative_to(venv.resolve())
    specs = Path(found["specs"])
    scenarios = Path(found["scenarios"])
    assert specs == package / "_data" / "specs"
    assert scenarios == package / "_data" / "scenarios"
    shipped = ["rules.yaml", "openapi.yaml", "schema.graphql", "schemas/token-response.json"]
    assert [name for name in shipped if not (specs / name).is_file()] == []
    assert sorted(scenarios.glob("*.yaml")), "the wheel ships no built-in scenario"

    version = wheel.name.split("-")[1]
    output = _run([str(_venv_bin(venv, "patgate")), "--version"], cwd=tmp_path)
    assert output.strip() == f"patgate {version}"
