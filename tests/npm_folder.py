"""What the npm folders under ``.cache`` share: pinned versions checked, installs serialized.

Stdlib only: ``.ci/counterparts`` runs the installers with the machine's ``python3``, before
the project's virtualenv (and so before ``filelock``) exists.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["install_lock", "pinned_versions_installed"]


def pinned_versions_installed(node_modules: Path, packages: Mapping[str, str]) -> bool:
    """Whether ``node_modules`` holds every package of ``packages`` at its pinned version."""
    for name, version in packages.items():
        manifest = node_modules / name / "package.json"
        try:
            if json.loads(manifest.read_text(encoding="utf-8")).get("version") != version:
                return False
        except (OSError, ValueError):
            return False
    return True


@contextlib.contextmanager
def install_lock(folder: Path) -> Iterator[None]:
    """Hold ``folder``'s install lock: pytest-xdist workers, or CI and a test, may ask at
    once; one installs, the others wait and find it done."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".install.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
