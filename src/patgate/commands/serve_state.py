"""``patgate serve --state PATH``: the served fake's state on disk, across restarts.

The file holds the seeded world's state (what a reset returns to), the current state (users,
roles, clients, PATs as hashes only, pending requests, the clock's offset), the world's
credentials and the control token, so a restart answers the same target file and every PAT
valid before it is valid after it. It is JSON, readable by the owner only, like the target
file, and written atomically: a new file beside it, flushed to disk, then renamed over the
old one, so a crash mid-write leaves the last good state.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patgate.errors import UsageError

if TYPE_CHECKING:
    from patgate.harness import Fake
    from patgate.wire.urls import FakeUrls

__all__ = ["StateKeeper", "restore_fake", "write_atomically"]

FORMAT = "patgate-serve-state"


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a reader sees the old file or the new one."""
    folder = path.parent if str(path.parent) else Path(".")
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def restore_fake(path: Path, urls: FakeUrls, *, log_size: int | None = None) -> Fake:
    """A fake from a state file: the seeded world as its reset point, then the saved state."""
    from patgate.fake.deployment import Deployment
    from patgate.fake.state import load_state
    from patgate.fake.world import DefaultWorld
    from patgate.harness import Fake

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot read the state file {path}: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path} is not a patgate serve state file")
    try:
        world = DefaultWorld(**data["world"])
        seed = int(data["seed"])
        control_token = str(data["control_token"])
    except (KeyError, TypeError, ValueError) as error:
        raise UsageError(f"the state file {path} is damaged: {error}") from None
    deployment = Deployment(seed=seed)
    try:
        load_state(deployment, data["seeded"])
    except KeyError:
        raise UsageError(f"the state file {path} is damaged: no seeded state") from None
    fake = Fake(
        deployment=deployment,
        urls=urls,
        log_size=log_size,
        control_token=control_token,
        world=world,
    )
    try:
        load_state(deployment, data["current"])
    except KeyError:
        raise UsageError(f"the state file {path} is damaged: no current state") from None
    return fake


class StateKeeper:
    """Saves a served fake's state to ``path`` after requests change it (and at the end)."""

    def __init__(self, path: Path, fake: Fake) -> None:
        from patgate.fake.state import export_state

        self.path = path
        self.fake = fake
        self._seeded = fake.control.seeded_state()
        self._seed = fake.deployment.seed
        self._export = export_state
        self._saved: str | None = None
        self._lock = threading.Lock()

    def document(self) -> dict[str, Any]:
        """What the state file holds."""
        return {
            "format": FORMAT,
            "seed": self._seed,
            "control_token": self.fake.control_token,
            "world": dataclasses.asdict(self.fake.default_world),
            "seeded": self._seeded,
            "current": self._export(self.fake.deployment),
        }

    def save(self) -> None:
        """Write the state now."""
        self._write(json.dumps(self.document(), indent=1) + "\n")

    def save_if_changed(self) -> None:
        """Write the state if it differs from the last one written."""
        text = json.dumps(self.document(), indent=1) + "\n"
        if text != self._saved:
            self._write(text)

    def _write(self, text: str) -> None:
        with self._lock:
            try:
                write_atomically(self.path, text)
            except OSError as error:
                raise UsageError(
                    f"cannot write the state file {self.path}: {error.strerror}"
                ) from None
            self._saved = text
