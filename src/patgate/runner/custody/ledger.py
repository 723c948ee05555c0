"""The on-disk record of everything a run creates, so cleanup deletes that and nothing else.

A create is written down *before* it is sent (``pending``), confirmed with its id
(``created``) once a listing shows that id as the run's new token, and closed by
``deleted``. An id a create answered that no listing confirmed is written as ``wrong_id``
(counted, and refused as a delete). A create the deployment refused is closed by
``refused``; one that may have happened (a timeout) stays ``pending`` until a listing
settles it: found (``created``) or not there (``absent``). The file is JSON lines, flushed
and fsynced after every entry, so a run killed at any point leaves a ledger that
``patgate cleanup`` can finish. A delete of an id the ledger does not hold is refused.

Entries never hold a secret: a name, an id, the target key (``admin_token``) whose token
made the create, so cleanup knows which of the target's tokens deletes it, and the target's
identity (:class:`TargetIdentity`: its origins and organization), so cleanup never deletes
on another deployment. Before a delete, the token listed under the id must carry the
recorded name; otherwise the entry is closed as ``mismatch`` and nothing is deleted.

Without a path the ledger lives in memory only: against the embedded fake nothing outlives
the process, and no file is written.
"""

from __future__ import annotations

import enum
import json
import os
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patgate.errors import CreateRefused, ForeignDeleteRefused, UsageError
from patgate.runner.connection.exchange import origin_of
from patgate.service.target_contract import TARGET_KEYS

if TYPE_CHECKING:
    from filelock import FileLock

    from patgate.runner.connection.config import TargetConfig

__all__ = ["NAME_PREFIX", "Ledger", "LedgerEntry", "LedgerState", "TargetIdentity"]

NAME_PREFIX = "patgate-"


class LedgerState(str, enum.Enum):
    """Where one create stands; the value is the event the ledger file records."""

    PENDING = "pending"
    """The create was sent (or is about to be); no id yet."""
    CREATED = "created"
    DELETED = "deleted"
    REFUSED = "refused"
    """The deployment said no: nothing exists."""
    ABSENT = "absent"
    """A create that may have happened, and a listing showed it did not."""
    MISMATCH = "mismatch"
    """The id now names a token this run did not make (or the entry is of another
    target): closed without a delete."""

    def __str__(self) -> str:
        return self.value


_OPEN = (LedgerState.PENDING, LedgerState.CREATED)
"""States that still need cleaning up."""


@dataclass(frozen=True)
class TargetIdentity:
    """Which deployment a token was made on: its origins and its organization."""

    origins: tuple[str, ...]
    """``scheme://host:port`` of each URL key of the target file, sorted."""
    organization: str | None = None

    @classmethod
    def of(cls, config: TargetConfig) -> TargetIdentity:
        """The identity of the deployment ``config`` describes."""
        urls = [config.text(key) for key in TARGET_KEYS if key.endswith("_url")]
        origins = sorted({origin for origin in map(origin_of, filter(None, urls)) if origin})
        return cls(tuple(origins), config.text("organization_id"))

    def record(self) -> dict[str, Any]:
        """The identity as written in the ledger."""
        return {"origins": list(self.origins), "organization": self.organization}

    @classmethod
    def from_record(cls, value: Any) -> TargetIdentity | None:
        """The identity written by :meth:`record`, or ``None`` for anything else."""
        if not isinstance(value, dict) or not isinstance(value.get("origins"), list):
            return None
        origins = tuple(str(origin) for origin in value["origins"])
        organization = value.get("organization")
        return cls(origins, organization if isinstance(organization, str) else None)

    def same_deployment(self, other: TargetIdentity) -> bool:
        """Whether ``other`` names this deployment: a shared origin, and the same
        organization when both know theirs."""
        if not set(self.origins) & set(other.origins):
            return False
        return not (self.organization and other.organization) or (
            self.organization == other.organization
        )

    def describe(self) -> str:
        """``https://host:443 (organization org-1)``."""
        where = ", ".join(self.origins) or "no origin"
        return f"{where} (organization {self.organization})" if self.organization else where


@dataclass
class LedgerEntry:
    """One thing a run set out to create."""

    name: str
    run_id: str
    state: LedgerState
    token_id: str | None = None
    bearer_key: str | None = None
    """The target key (``admin_token``) whose token made the create, when it was one."""
    target: TargetIdentity | None = None
    """The deployment the create was sent to (``None`` in ledgers older than the field)."""

    @property
    def outstanding(self) -> bool:
        """Whether cleanup still has something to do (delete it, or find out if it exists)."""
        return self.state in _OPEN


class Ledger:
    """One run's ledger, appended to ``path`` (shared by runs; entries carry the run id).

    ``path=None`` keeps it in memory (the embedded fake). ``target``: the deployment this
    run creates on, written with each create.
    """

    def __init__(
        self, path: Path | str | None, run_id: str, *, target: TargetIdentity | None = None
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.run_id = run_id
        self.target = target
        self._lock = threading.Lock()
        self._entries: dict[str, LedgerEntry] = {}
        self._by_id: dict[str, LedgerEntry] = {}
        self._sequence = 0
        self._appending: FileLock | None = None
        self.refused = 0
        """Deletes refused because the id was not in the ledger."""
        self._wrong: dict[str, str] = {}
        """Ids a create answered that no listing showed as the run's new token, with the
        name of the create that answered them: never deleted."""

    # -- writing -------------------------------------------------------------------------

    def _append(self, record: dict[str, Any]) -> None:
        if self.path is None:
            return
        # Open, append, fsync, close: a kill at any instant leaves only whole lines behind.
        record = {"at": datetime.now(timezone.utc).isoformat(), "run_id": self.run_id, **record}
        line = json.dumps(record, sort_keys=True) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Other processes append to the same file (pytest-xdist workers, a second run).
            with self._file_lock():
                descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
                with os.fdopen(descriptor, "a", encoding="utf-8") as file:
                    file.write(line)
                    file.flush()
                    os.fsync(file.fileno())
        except OSError as error:
            raise UsageError(f"cannot write the ledger {self.path}: {error}") from error

    def _file_lock(self) -> FileLock:
        """The lock every process takes to append to the file (``<ledger>.lock``)."""
        if self._appending is None:
            from filelock import FileLock

            self._appending = FileLock(f"{self.path}.lock")
        return self._appending

    def next_name(self) -> str:
        """A fresh name for something this run creates: ``patgate-<run id>-<n>``."""
        with self._lock:
            self._sequence += 1
            return f"{self.name_prefix}{self._sequence}"

    @property
    def name_prefix(self) -> str:
        """``patgate-<run id>-``: every name this run gives starts with it."""
        return f"{NAME_PREFIX}{self.run_id}-"

    def intend(self, name: str, bearer_key: str | None = None) -> None:
        """Write down a create before it is sent; a name is used once."""
        with self._lock:
            if name in self._entries:
                raise ValueError(f"{name!r} is already in the ledger")
            record: dict[str, Any] = {"event": "pending", "name": name}
            if bearer_key:
                record["as"] = bearer_key
            if self.target is not None:
                record["target"] = self.target.record()
            self._append(record)
            self._entries[name] = LedgerEntry(
                name, self.run_id, LedgerState.PENDING, None, bearer_key, self.target
            )

    def adopt(self, name: str, token_id: str, *, bearer_key: str | None = None) -> str:
        """Write down a token made outside the custodian (a generated create the fuzzer saw
        succeed) as created, so that cleanup can find it; returns the name it is under."""
        with self._lock:
            taken = name in self._entries
        recorded = f"{name} [{token_id}]" if taken else name
        self.intend(recorded, bearer_key)
        self.confirm(recorded, token_id)
        return recorded

    def confirm(self, name: str, token_id: str) -> None:
        """Record the id the deployment gave a create (from its answer, or a listing)."""
        with self._lock:
            entry = self._entries.get(name)
            if entry is None:
                raise CreateRefused(f"{name!r} was never written to the ledger")
            if entry.token_id == token_id and entry.state is not LedgerState.PENDING:
                return
            self._append({"event": "created", "name": name, "id": token_id})
            entry.state, entry.token_id = LedgerState.CREATED, token_id
            self._by_id[token_id] = entry
            if self._wrong.get(token_id) == name:
                del self._wrong[token_id]  # a later listing showed it as the run's after all

    def abandon(self, name: str) -> None:
        """A create the deployment refused: nothing exists to clean up."""
        self._close_pending(name, LedgerState.REFUSED)

    def absent(self, name: str) -> None:
        """A create that may have happened, and a listing shows it did not."""
        self._close_pending(name, LedgerState.ABSENT)

    def _close_pending(self, name: str, state: LedgerState) -> None:
        with self._lock:
            entry = self._entries.get(name)
            if entry is not None and entry.state is LedgerState.PENDING:
                self._append({"event": state.value, "name": name})
                entry.state = state

    def mismatch(self, name: str, reason: str) -> None:
        """The id no longer names this run's token (or the entry is of another target):
        closed without a delete, ``reason`` written down."""
        with self._lock:
            entry = self._entries.get(name)
            if entry is not None and entry.outstanding:
                self._append({"event": LedgerState.MISMATCH.value, "name": name, "reason": reason})
                entry.state = LedgerState.MISMATCH

    def wrong_id(self, name: str, token_id: str, reason: str) -> None:
        """The create ``name`` was answered ``token_id``, which a listing did not show as the
        run's new token (``reason``): a finding, written down; the id is never deleted."""
        with self._lock:
            if token_id in self._wrong:
                return
            self._append({"event": "wrong_id", "name": name, "id": token_id, "reason": reason})
            self._wrong[token_id] = name

    def check_delete(self, token_id: str) -> LedgerEntry:
        """The entry for ``token_id`` (in any state); :class:`ForeignDeleteRefused`, counted
        in :attr:`refused`, when this run did not create it (an id a create answered and no
        listing confirmed included)."""
        with self._lock:
            entry = self._by_id.get(token_id)
            if entry is None:
                self.refused += 1
                if token_id in self._wrong:
                    raise ForeignDeleteRefused(
                        f"refused to delete {token_id!r}: the deployment answered it for the "
                        f"create of {self._wrong[token_id]!r}, but no listing showed it as that "
                        "new token (patgate deletes only what it created)"
                    )
                raise ForeignDeleteRefused(
                    f"refused to delete {token_id!r}: this run's ledger does not hold it "
                    "(patgate deletes only what it created)"
                )
            return entry

    def deleted(self, token_id: str) -> None:
        """The token is gone (deleted by this run, or found missing)."""
        with self._lock:
            entry = self._by_id.get(token_id)
            if entry is not None and entry.state is LedgerState.CREATED:
                self._append({"event": "deleted", "name": entry.name, "id": token_id})
                entry.state = LedgerState.DELETED

    def reopen(self, name: str) -> None:
        """A token recorded as deleted is still listed: it is outstanding again."""
        with self._lock:
            entry = self._entries.get(name)
            if entry is not None and entry.state is LedgerState.DELETED and entry.token_id:
                self._append({"event": "created", "name": name, "id": entry.token_id})
                entry.state = LedgerState.CREATED

    # -- reading -------------------------------------------------------------------------

    def entry(self, name: str) -> LedgerEntry | None:
        """The entry named ``name``, if this run wrote one."""
        with self._lock:
            return self._entries.get(name)

    def entries(self) -> list[LedgerEntry]:
        """Every entry, in the order the run wrote them."""
        with self._lock:
            return list(self._entries.values())

    def outstanding(self) -> list[LedgerEntry]:
        """Entries still to clean up: created and not deleted, or pending (ambiguous)."""
        with self._lock:
            return [e for e in self._entries.values() if e.outstanding]

    def counts(self) -> dict[str, int]:
        """``created``, ``deleted``, ``leaked``, ``refused`` and ``wrong_ids`` for the
        end-of-run report."""
        with self._lock:
            entries = list(self._entries.values())
            refused = self.refused
            wrong = len(self._wrong)
        made = [e for e in entries if e.token_id is not None]
        return {
            "created": len(made),
            "deleted": sum(e.state is LedgerState.DELETED for e in made),
            "leaked": sum(e.outstanding for e in entries),
            "refused": refused,
            "wrong_ids": wrong,
        }

    @classmethod
    def load(cls, path: Path | str) -> list[Ledger]:
        """Every run recorded in ``path``, replayed, for ``patgate cleanup``."""
        path = Path(path)
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"cannot read the ledger {path}: {error}") from error
        runs: dict[str, Ledger] = {}
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                run_id, event, name = record["run_id"], record["event"], record["name"]
                if not all(isinstance(v, str) for v in (run_id, event, name)):
                    raise TypeError(event)
            except (ValueError, KeyError, TypeError):
                raise UsageError(f"{path}:{number}: not a ledger entry") from None
            ledger = runs.setdefault(run_id, cls(path, run_id))
            ledger._replay(event, name, record)
        return list(runs.values())

    def _replay(self, event: str, name: str, record: dict[str, Any]) -> None:
        entry = self._entries.setdefault(name, LedgerEntry(name, self.run_id, LedgerState.PENDING))
        if event == LedgerState.PENDING:
            entry.bearer_key = record.get("as") or entry.bearer_key
            entry.target = TargetIdentity.from_record(record.get("target")) or entry.target
        elif event == LedgerState.CREATED and isinstance(record.get("id"), str):
            entry.state, entry.token_id = LedgerState.CREATED, record["id"]
            self._by_id[record["id"]] = entry
        elif event in (
            LedgerState.DELETED,
            LedgerState.REFUSED,
            LedgerState.ABSENT,
            LedgerState.MISMATCH,
        ):
            entry.state = LedgerState(event)
