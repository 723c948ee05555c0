"""Other people's tools that judge the published specs, pinned, and their install.

``python -m tests.specs.ecosystem_tools`` installs them (``.ci/counterparts`` runs it):
schemathesis into its own virtualenv (``.cache/tools/schemathesis-venv``), and redocly,
spectral and graphql-inspector into an npm folder (``.cache/tools/npm``), both inside the
clone and git-ignored. None of them is a dependency of patgate: they read the specs and talk
HTTP to ``patgate serve``, as they would to any server. Running it again installs nothing
that is already there at its pinned version.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.npm_folder import install_lock, pinned_versions_installed

__all__ = [
    "INSTALL_COMMAND",
    "NPM_BIN",
    "NPM_PACKAGES",
    "SCHEMATHESIS",
    "SCHEMATHESIS_VERSION",
    "TOOLS_DIR",
    "install",
    "npm_installed",
    "schemathesis_installed",
]

ROOT = Path(__file__).resolve().parents[2]
TOOLS_DIR = ROOT / ".cache" / "tools"
SCHEMATHESIS_VENV = TOOLS_DIR / "schemathesis-venv"
SCHEMATHESIS = SCHEMATHESIS_VENV / "bin" / "st"
SCHEMATHESIS_VERSION = "4.32.5"
NPM_DIR = TOOLS_DIR / "npm"
NPM_BIN = NPM_DIR / "node_modules" / ".bin"
NPM_PACKAGES = {
    "@redocly/cli": "2.77.0",
    "@stoplight/spectral-cli": "6.16.3",
    "@graphql-inspector/cli": "7.0.0",
    "graphql": "16.15.0",  # graphql-inspector's peer dependency
}
"""The npm tools and the versions the tests run (each checked to install and run on node 20)."""
INSTALL_COMMAND = "python -m tests.specs.ecosystem_tools (or bash .ci/counterparts)"
"""What a skipped test tells a developer to run."""
INSTALL_TIMEOUT = 600


def schemathesis_installed() -> bool:
    """Whether the virtualenv holds schemathesis at its pinned version."""
    record = f"schemathesis-{SCHEMATHESIS_VERSION}.dist-info"
    found = SCHEMATHESIS_VENV.glob(f"lib/python*/site-packages/{record}")
    return SCHEMATHESIS.is_file() and any(found)


def npm_installed() -> bool:
    """Whether the npm folder holds every pinned package at its pinned version."""
    return pinned_versions_installed(NPM_DIR / "node_modules", NPM_PACKAGES)


def _run(command: list[str]) -> str | None:
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{command[0]}: {error}"
    if done.returncode != 0:
        return f"{' '.join(command[:3])} failed: {done.stderr.strip()[-2000:]}"
    return None


def _install_schemathesis() -> str | None:
    if schemathesis_installed():
        return None
    python = SCHEMATHESIS_VENV / "bin" / "python"
    if not python.is_file():
        problem = _run([sys.executable, "-m", "venv", str(SCHEMATHESIS_VENV)])
        if problem:
            return problem
    return _run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            f"schemathesis=={SCHEMATHESIS_VERSION}",
        ]
    )


def _install_npm() -> str | None:
    if npm_installed():
        return None
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        return "needs node 20 and npm on PATH"
    NPM_DIR.mkdir(parents=True, exist_ok=True)
    packages = [f"{name}@{version}" for name, version in NPM_PACKAGES.items()]
    flags = ["--no-audit", "--no-fund", "--save-exact", "--silent"]
    return _run([npm, "install", "--prefix", str(NPM_DIR), *flags, *packages])


def install() -> str | None:
    """Install every pinned tool unless present; ``None`` on success, else why not."""
    with install_lock(TOOLS_DIR):
        problems = [p for p in (_install_schemathesis(), _install_npm()) if p]
    return "; ".join(problems) or None


def main() -> int:
    """Install, and say what happened."""
    problem = install()
    if problem:
        print(f"ecosystem tools: {problem}", file=sys.stderr)
        return 1
    print(f"ecosystem tools: installed in {os.path.relpath(TOOLS_DIR, ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
