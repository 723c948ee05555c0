"""The vendor's node packages the client tests drive, pinned, and their install.

``python -m tests.clients.vendor`` installs them (``.ci/counterparts`` runs it); the test
fixture does the same on first use, so a developer with node and npm needs no extra step.
Packages go into ``.cache/vendor`` inside the clone (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.npm_folder import install_lock, pinned_versions_installed

__all__ = ["CLI_BIN", "NODE_MODULES", "PACKAGES", "VENDOR_DIR", "install", "installed"]

ROOT = Path(__file__).resolve().parents[2]
VENDOR_DIR = ROOT / ".cache" / "vendor"
NODE_MODULES = VENDOR_DIR / "node_modules"
CLI_BIN = NODE_MODULES / ".bin" / "dc-cli"
PACKAGES = {"dc-management-sdk-js": "3.3.0", "@amplience/dc-cli": "0.19.1"}
"""The vendor client versions the tests run: the newest of each on the registry."""
INSTALL_TIMEOUT = 600


def installed() -> bool:
    """Whether every pinned package is in the cache at its pinned version."""
    return pinned_versions_installed(NODE_MODULES, PACKAGES)


def install() -> str | None:
    """Install the pinned packages unless present; ``None`` on success, else why not."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "needs node 20 and npm on PATH (apt-get install nodejs npm)"
    with install_lock(VENDOR_DIR):
        if installed():
            return None
        specs = [f"{name}@{version}" for name, version in PACKAGES.items()]
        command = ["npm", "install", "--prefix", str(VENDOR_DIR), "--no-audit", "--no-fund"]
        try:
            done = subprocess.run(
                [*command, *specs],
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT,
                check=False,
                env={**os.environ, "npm_config_update_notifier": "false"},
            )
        except subprocess.TimeoutExpired:
            return (
                f"npm install of {', '.join(specs)} took over {INSTALL_TIMEOUT} s"
                " (bash .ci/counterparts installs them)"
            )
        if done.returncode != 0 or not installed():
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            return (
                f"npm install of {', '.join(specs)} failed: {' / '.join(tail)}"
                " (bash .ci/counterparts installs them)"
            )
    return None


if __name__ == "__main__":
    problem = install()
    if problem is not None:
        print(f"vendor clients: {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"vendor clients: {', '.join(f'{n}@{v}' for n, v in PACKAGES.items())} in {VENDOR_DIR}")
