"""The on-disk record of everything a run creates, so cleanup deletes that and nothing else.

A create is written down *before* it is sent (``pending``), confirmed with the returned id
(``created``) and closed by ``deleted``. The file is JSON lines, flushed and fsynced after
every entry, so a run killed at any point leaves a ledger that ``patgate cleanup`` can
finish. A delete of an id the ledger does not hold is refused.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from patgate.errors import PatgateError, UsageError

__all__ = ["ForeignDeleteRefused", "Ledger", "LedgerEntry"]

NAME_PREFIX = "patgate-"


class ForeignDeleteRefused(PatgateError, PermissionError):
    """The runner was asked to delete something this run's ledger does not hold."""


@dataclass
class LedgerEntry:
    name: str
    run_id: str
    state: str
    """``pending`` (create sent, no id yet), ``created`` or ``deleted``."""
    token_id: str | None = None


class Ledger:
    """One run's ledger, appended to ``path`` (shared by runs; entries carry the run id)."""

    def __init__(self, path: Path | str, run_id: str) -> None:
        self.path = Path(path)
        self.run_id = run_id
        self._lock = threading.Lock()
        self._entries: dict[str, LedgerEntry] = {}
        self._sequence = 0

    # -- writing -------------------------------------------------------------------------

    def _append(self, record: dict[str, Any]) -> None:
        # Open, append, fsync, close: a kill at any instant leaves only whole lines behind.
        record = {"at": datetime.now(timezone.utc).isoformat(), "run_id": self.run_id, **record}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as file:
                file.write(json.dumps(record, sort_keys=True) + "\n")
                file.flush()
                os.fsync(file.fileno())
        except OSError as error:
            raise UsageError(f"cannot write the ledger {self.path}: {error}") from error

    def next_name(self) -> str:
        """A fresh name for something this run creates: ``patgate-<run id>-<n>``."""
        with self._lock:
            self._sequence += 1
            return f"{NAME_PREFIX}{self.run_id}-{self._sequence}"

    def intend(self, name: str) -> None:
        """Write down a create before it is sent."""
        with self._lock:
            self._append({"event": "pending", "name": name})
            self._entries[name] = LedgerEntry(name, self.run_id, "pending")

    def confirm(self, name: str, token_id: str) -> None:
        """Record the id the deployment gave a create."""
        with self._lock:
            entry = self._entries.get(name)
            if entry is None:
                raise ForeignDeleteRefused(f"{name!r} was never written to the ledger")
            self._append({"event": "created", "name": name, "id": token_id})
            entry.state, entry.token_id = "created", token_id

    def abandon(self, name: str) -> None:
        """A create that was refused (nothing exists to clean up)."""
        with self._lock:
            entry = self._entries.get(name)
            if entry is not None and entry.state == "pending":
                self._append({"event": "refused", "name": name})
                entry.state = "deleted"

    def check_delete(self, token_id: str) -> LedgerEntry:
        """The entry for ``token_id``; :class:`ForeignDeleteRefused` if this run did not make it."""
        with self._lock:
            for entry in self._entries.values():
                if entry.token_id == token_id and entry.state == "created":
                    return entry
        raise ForeignDeleteRefused("refusing to delete a token this run's ledger does not hold")

    def deleted(self, token_id: str) -> None:
        with self._lock:
            for entry in self._entries.values():
                if entry.token_id == token_id and entry.state == "created":
                    self._append({"event": "deleted", "name": entry.name, "id": token_id})
                    entry.state = "deleted"
                    return

    # -- reading -------------------------------------------------------------------------

    def outstanding(self) -> list[LedgerEntry]:
        """Entries still to clean up: created and not deleted, or pending (ambiguous)."""
        with self._lock:
            return [e for e in self._entries.values() if e.state in ("pending", "created")]

    def counts(self) -> dict[str, int]:
        """``created``, ``deleted`` and ``leaked`` for the end-of-run report."""
        with self._lock:
            entries = list(self._entries.values())
        made = [e for e in entries if e.token_id is not None]
        deleted = [e for e in made if e.state == "deleted"]
        return {
            "created": len(made),
            "deleted": len(deleted),
            "leaked": sum(e.state in ("pending", "created") for e in entries),
        }

    @classmethod
    def load(cls, path: Path | str) -> list[Ledger]:
        """Every run recorded in ``path``, replayed, for ``patgate cleanup``."""
        path = Path(path)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise UsageError(f"cannot read the ledger {path}: {error}") from error
        runs: dict[str, Ledger] = {}
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                run_id, event, name = record["run_id"], record["event"], record["name"]
            except (ValueError, KeyError, TypeError):
                raise UsageError(f"{path}:{number}: not a ledger entry") from None
            ledger = runs.setdefault(run_id, cls(path, run_id))
            entry = ledger._entries.setdefault(name, LedgerEntry(name, run_id, "pending"))
            if event == "created":
                entry.state, entry.token_id = "created", record.get("id")
            elif event in ("deleted", "refused"):
                entry.state = "deleted"
        return list(runs.values())
