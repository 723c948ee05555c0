"""``patgate serve --state PATH``: the served fake's state on disk, durable and checked.

Three files live beside each other:

- ``PATH``, the snapshot: the seeded world's state (what a reset returns to), the current
  state (users, roles, clients, PATs as hashes only, pending requests, the clock's offset,
  the id generator's position), the world's credentials and the control token. Written
  atomically: a temporary file beside it, flushed to disk, renamed over the old one, and the
  folder flushed too.
- ``PATH.journal``: one JSON line per change since the snapshot (:mod:`patgate.fake.changes`
  says what is recorded). **Acknowledged means durable**: a request that changed anything
  (a create, a delete, an approval, a removal, a role, the clock, a reset) is answered only
  once its line is written and flushed to disk (``fsync``). Requests arriving together share
  one flush (group commit). A PAT's ``lastUsedDate`` is written with the next change or
  :data:`LAZY_SECONDS` later, never waited for. When the journal outgrows
  :data:`COMPACT_BYTES` (or the snapshot), a background thread writes a new snapshot and
  starts a new journal. An idle server writes nothing and its threads sleep.
- ``PATH.lock``: held (``flock``, through the ``filelock`` library) while a server uses the
  state, so a second ``patgate serve --state PATH`` stops at once with exit code 2.

At start the snapshot is checked before anything is loaded (size, nesting, JSON Schema
types and ranges, no ``NaN`` or infinite number), the journal's lines after the snapshot are
replayed (a torn last line, never acknowledged, is dropped), a fresh snapshot is written,
and temporary files a crash left behind are removed. ``PATH`` must not be a symbolic link.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from patgate.errors import UsageError
from patgate.guards.supplied_files import (
    FileRefused,
    decode_supplied,
    parse_json,
    read_supplied,
    refuse_unless_regular,
)

if TYPE_CHECKING:
    from filelock import BaseFileLock

    from patgate.fake.changes import Changes
    from patgate.fake.profile import Profile
    from patgate.harness import Fake
    from patgate.wire.messages import WireRequest, WireResponse
    from patgate.wire.urls import FakeUrls

__all__ = [
    "COMPACT_BYTES",
    "LAZY_SECONDS",
    "MAX_DEPTH",
    "MAX_STATE_BYTES",
    "Persistence",
    "open_state",
    "refuse_symlink",
    "write_atomically",
]

FORMAT = "patgate-serve-state"
MAX_STATE_BYTES = 1024 * 1024 * 1024
"""A snapshot or journal above 1 GiB is refused (100,000 users take about 60 MB; a journal
is folded into a snapshot at :data:`COMPACT_BYTES` or the snapshot's size). It is read
under the discipline of :mod:`patgate.guards.supplied_files`; a regular file is refused from its
size before it is read, and anything but a regular file is refused outright."""
MAX_DEPTH = 32
"""JSON nested deeper than this (a hub's settings included) is refused."""
COMPACT_BYTES = 8 * 1024 * 1024
"""The journal is folded into a new snapshot once it holds this much (or the snapshot's size)."""
LAZY_SECONDS = 2.0
"""A PAT's new ``lastUsedDate`` reaches the journal at most this long after its use."""
_TEMPORARY = ".tmp"
_MAX_TEXT = 4096
_MAX_OFFSET = 400 * 365.25 * 86400 * 25  # the clock's own check is the exact bound


def refuse_symlink(path: Path, what: str) -> None:
    """Raise :class:`UsageError` when ``path`` is a symbolic link (never written through)."""
    if path.is_symlink():
        raise UsageError(
            f"the {what} {path} is a symbolic link; patgate does not write through one "
            "(give the link's target instead)"
        )


def _sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_atomically(path: Path, text: str | bytes) -> None:
    """Replace ``path`` with ``text`` so that a reader sees the old file or the new one."""
    import tempfile

    folder = path.parent if str(path.parent) else Path(".")
    data = text.encode("utf-8") if isinstance(text, str) else text
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_TEMPORARY, dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            os.fchmod(handle.fileno(), 0o600)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        _sync_folder(folder)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _remove_stale_temporaries(path: Path) -> list[Path]:
    """Delete the temporary files an earlier server left beside ``path`` (it held the lock,
    so no other server is writing them now)."""
    folder = path.parent if str(path.parent) else Path(".")
    # mkstemp's names: ".NAME." + 8 characters (+ ".tmp" since the suffix was added).
    pattern = re.compile(re.escape(f".{path.name}.") + r"[A-Za-z0-9_]{8}(\.tmp)?")
    removed = []
    for candidate in folder.iterdir():
        if pattern.fullmatch(candidate.name) and not candidate.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                candidate.unlink()
                removed.append(candidate)
    return removed


# -- reading, checked ----------------------------------------------------------------------


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a state file may hold")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:40]} is beyond the range of a number")
    return value


def _parse(data: bytes, path: Path, line: int = 1) -> Any:
    """The JSON value in ``data`` (of ``path``, from ``line``): UTF-8, nested at most
    :data:`MAX_DEPTH` deep, finite numbers only."""
    return parse_json(
        decode_supplied(data, path, line),
        str(path),
        max_depth=MAX_DEPTH,
        parse_constant=_refuse_constant,
        parse_float=_finite,
        first_line=line,
    )


def _read_bounded(path: Path) -> bytes:
    """At most :data:`MAX_STATE_BYTES` of ``path``: a regular file, not a link, nor a pipe
    or a device (the state is a file ``patgate serve`` wrote itself)."""
    return read_supplied(path, limit=MAX_STATE_BYTES, regular_only=True, follow_symlinks=False)


_TEXT = {"type": "string", "maxLength": _MAX_TEXT}
_HEX = {"type": "string", "pattern": "^[0-9a-f]{0,256}$"}
_DATE = {"type": "string", "maxLength": 64}
_ROLE = {"type": "string", "maxLength": 64}  # the role names are checked on loading


def _records(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "array",
        "items": {
            "type": "object",
            "required": sorted(required),
            "properties": {**required, **(optional or {})},
        },
    }


_STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        "version",
        "pat_prefix",
        "clock_offset",
        "ids",
        "organizations",
        "users",
        "clients",
        "hubs",
        "tokens",
    ],
    "properties": {
        "version": {"const": 1},
        "pat_prefix": {"type": "string", "maxLength": 64},
        "clock_offset": {"type": "number", "minimum": 0, "maximum": _MAX_OFFSET},
        "ids": {
            "type": "array",
            "minItems": 3,
            "maxItems": 3,
            "prefixItems": [
                {"type": "integer", "minimum": 0, "maximum": 10},
                {
                    "type": "array",
                    "minItems": 625,
                    "maxItems": 625,
                    "items": {"type": "integer", "minimum": 0, "maximum": 2**32 - 1},
                },
                {"type": ["number", "null"]},
            ],
        },
        "organizations": _records({"id": _TEXT, "name": _TEXT}),
        "users": _records(
            {
                "id": _TEXT,
                "uuid": _TEXT,
                "name": _TEXT,
                "email": _TEXT,
                "memberships": {
                    "type": "object",
                    "maxProperties": 1000,
                    "additionalProperties": _ROLE,
                },
            }
        ),
        "clients": _records(
            {"client_id": _TEXT, "secret_hash": _HEX, "user_id": _TEXT, "organization_id": _TEXT}
        ),
        "hubs": _records(
            {
                "id": _TEXT,
                "organization_id": _TEXT,
                "name": _TEXT,
                "label": _TEXT,
                "description": {"type": "string", "maxLength": 65536},
                "status": _TEXT,
                "settings": {"type": "object"},
                "created_by": _TEXT,
                "created_date": _DATE,
                "last_modified_by": _TEXT,
                "last_modified_date": _DATE,
            }
        ),
        "tokens": _records(
            {
                "id": _TEXT,
                "user_id": _TEXT,
                "organization_id": _TEXT,
                "name": {"type": "string", "maxLength": 1024},
                "id_segment": _TEXT,
                "secret_hash": _HEX,
                "masked": _TEXT,
                "created_date": _DATE,
                "last_used_date": {"type": ["string", "null"], "maxLength": 64},
                "status": {"enum": ["active", "pending"]},
            }
        ),
    },
}

_FILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["format", "seed", "control_token", "world", "seeded", "current"],
    "properties": {
        "format": {"const": FORMAT},
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
        "control_token": {"type": "string", "minLength": 16, "maxLength": 256},
        "world": {"type": "object", "additionalProperties": _TEXT, "maxProperties": 64},
        "seeded": _STATE_SCHEMA,
        "current": _STATE_SCHEMA,
        "journal_through": {"type": "integer", "minimum": 0},
    },
}

_STORE_CHANGES = {
    store: {
        "type": "object",
        "additionalProperties": {
            "anyOf": [{"type": "null"}, _STATE_SCHEMA["properties"][store]["items"]]
        },
    }
    for store in ("organizations", "users", "clients", "hubs", "tokens")
}
_ENTRY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["seq"],
    "properties": {
        "seq": {"type": "integer", "minimum": 1},
        "full": _STATE_SCHEMA,
        "clock_offset": _STATE_SCHEMA["properties"]["clock_offset"],
        "ids": _STATE_SCHEMA["properties"]["ids"],
        **_STORE_CHANGES,
    },
    "additionalProperties": False,
}


def _check(value: Any, schema: dict[str, Any], what: str) -> None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(schema).iter_errors(value))
    if error is not None:
        where = "".join(
            f"[{part}]" if isinstance(part, int) else f".{part}" for part in error.absolute_path
        )
        raise UsageError(
            f"{what} is damaged at {where.lstrip('.') or 'the top'}: {error.message[:200]}"
        )


def _read_snapshot(path: Path) -> dict[str, Any]:
    what = f"the state file {path}"
    try:
        document = _parse(_read_bounded(path), path)
    except FileRefused as error:
        raise UsageError(f"the state file {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise UsageError(f"{path} is not a patgate serve state file")
    _check(document, _FILE_SCHEMA, what)
    return document


def _read_journal(path: Path, through: int) -> tuple[list[dict[str, Any]], int]:
    """The journal's entries after ``through``, checked, and the last sequence number seen."""
    if not path.exists() and not path.is_symlink():
        return [], through
    refuse_symlink(path, "journal")
    try:
        lines = _read_bounded(path).split(b"\n")
    except FileRefused as error:
        raise UsageError(f"the journal {error}") from None
    entries: list[dict[str, Any]] = []
    last = through
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = _parse(line, path, number)
        except FileRefused as error:
            if number >= len(lines) - 1:
                break  # a torn last line: it was never flushed, so never acknowledged
            raise UsageError(f"the journal {error}") from None
        _check(entry, _ENTRY_SCHEMA, f"the journal {path}, line {number}")
        if entry["seq"] <= last:
            continue  # already in the snapshot
        entries.append(entry)
        last = entry["seq"]
    return entries, last


def _restore(
    document: dict[str, Any],
    entries: list[dict[str, Any]],
    urls: FakeUrls,
    log_size: int | None,
    profile: Profile | None = None,
) -> Fake:
    from patgate.fake.deployment import Deployment
    from patgate.fake.state import apply_changes, load_state
    from patgate.fake.world import DefaultWorld
    from patgate.harness import Fake

    try:
        world = DefaultWorld(**document["world"])
    except TypeError as error:
        raise UsageError(f"the state file's world is damaged: {error}") from None
    deployment = Deployment(seed=document["seed"], profile=profile)
    load_state(deployment, document["seeded"])
    fake = Fake(
        deployment=deployment,
        urls=urls,
        log_size=log_size,
        control_token=document["control_token"],
        world=world,
    )
    current = document["current"]
    for entry in entries:
        current = apply_changes(current, entry)
    _check(current, _STATE_SCHEMA, "the state after its journal")
    load_state(deployment, current)
    return fake


# -- the journal -----------------------------------------------------------------------------


class _Journal:
    """An append-only file of JSON lines; :meth:`wait` returns once a line is on disk.

    Group commit: the first waiter writes and flushes every line appended so far while the
    others wait for it; whoever arrives during that flush is in the next one.
    """

    def __init__(self, path: Path, last: int) -> None:
        self.path = path
        self._condition = threading.Condition()
        self._pending: list[bytes] = []
        self.last = last
        """The sequence number of the last line appended."""
        self.durable = last
        """The sequence number of the last line on disk."""
        self.size = 0
        self._flushing = False
        self._failure: OSError | None = None
        self._descriptor = self._open()

    def _open(self) -> int:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
        return os.open(self.path, flags, 0o600)

    def append(self, entry: dict[str, Any]) -> int:
        """Add ``entry`` as the next line (in memory until a :meth:`wait`); its number."""
        with self._condition:
            self.last += 1
            entry["seq"] = self.last
            self._pending.append(json.dumps(entry, separators=(",", ":")).encode() + b"\n")
            return self.last

    def wait(self, seq: int) -> None:
        """Return once line ``seq`` and every line before it are flushed to disk."""
        if self.durable >= seq:
            return
        with self._condition:
            while self.durable < seq:
                if self._failure is not None:
                    raise self._failure
                if self._flushing:
                    self._condition.wait()
                    continue
                self._flush_locked()

    def _flush_locked(self) -> None:
        batch, self._pending = self._pending, []
        upto = self.last
        self._flushing = True
        self._condition.release()
        try:
            data = b"".join(batch)
            view = memoryview(data)
            while view:
                view = view[os.write(self._descriptor, view) :]
            os.fsync(self._descriptor)
        except OSError as error:
            self._failure = error
            raise
        finally:
            self._condition.acquire()
            self._flushing = False
            self._condition.notify_all()
        self.durable = upto
        self.size += len(data)

    def rotate(self, old: Path) -> int:
        """Flush, move the journal to ``old`` and start an empty one; the last number in
        ``old``."""
        with self._condition:
            while self._flushing:
                self._condition.wait()
            if self._pending:
                self._flush_locked()
            os.close(self._descriptor)
            os.replace(self.path, old)
            self._descriptor = self._open()
            _sync_folder(self.path.parent)
            self.size = 0
            return self.last

    def close(self) -> None:
        with self._condition:
            while self._flushing:
                self._condition.wait()
            if self._pending:
                self._flush_locked()
            os.close(self._descriptor)


class Persistence:
    """Keeps a served fake's state in ``path``: snapshot, journal and lock (module docs).

    Serve :meth:`handle` in place of ``fake.handle``: it answers only once the request's
    changes are on disk. :meth:`close` writes a last snapshot and releases the lock.
    """

    def __init__(self, path: Path, fake: Fake, lock: BaseFileLock, last: int) -> None:
        from patgate.fake.changes import Changes

        self.path = path
        self.fake = fake
        self._state_lock = lock
        self._seeded = fake.control.seeded_state()
        self.changes: Changes = Changes()
        self._journal_path = path.with_name(path.name + ".journal")
        self._old_path = path.with_name(path.name + ".journal.old")
        self._snapshot_size = 0
        self._compact(last)  # everything read so far, in one fresh snapshot
        self._journal = _Journal(self._journal_path, last)
        self._durable_seq = last  # the last entry holding a change someone waits for
        self._wake = threading.Condition()
        self._lazy_due = False
        self._compact_due = False
        self._stopping = False
        self.changes.on_lazy = self._lazy_arrived
        fake.deployment.track_changes(self.changes)
        self._writer = threading.Thread(
            target=self._write_in_background, daemon=True, name="patgate-state"
        )
        self._writer.start()

    # -- answering -------------------------------------------------------------------------

    def handle(self, request: WireRequest) -> WireResponse | None:
        """``fake.handle``, answering once the request's changes are on disk."""
        before = self.changes.count
        response = self.fake.handle(request)
        if self.changes.count != before:  # this request, or one beside it, changed something
            self.commit()
        return response

    def commit(self) -> None:
        """Write every durable change made so far to the journal and wait until it is on
        disk (a PAT's last use, alone, is left to the background writer)."""
        if self.changes.count != self.changes.written:
            self._capture()
        self._journal.wait(self._durable_seq)
        if self._journal.size > max(COMPACT_BYTES, self._snapshot_size):
            self._signal(compact=True)

    def _capture(self) -> None:
        """Append one entry with the changes not yet in the journal (the deployment's lock
        is held from the take to the append, so entries follow the order of changes)."""
        from patgate.fake.state import changed_records, exclusive

        deployment = self.fake.deployment
        with exclusive(deployment):
            taken, count = self.changes.take()
            if taken.durable or any(taken.keys.values()):
                seq = self._journal.append(changed_records(deployment, taken))
                if taken.durable:
                    self._durable_seq = seq
            self.changes.written = count

    # -- the background writer ---------------------------------------------------------------

    def _lazy_arrived(self) -> None:
        self._signal(lazy=True)

    def _signal(self, *, lazy: bool = False, compact: bool = False) -> None:
        with self._wake:
            self._lazy_due |= lazy
            self._compact_due |= compact
            self._wake.notify()

    def _write_in_background(self) -> None:
        """Sleep until told; then write lazy changes (after a short delay) or compact."""
        while True:
            with self._wake:
                while not (self._lazy_due or self._compact_due or self._stopping):
                    self._wake.wait()
                if self._stopping:
                    return
                if self._lazy_due and not self._compact_due:
                    self._wake.wait(LAZY_SECONDS)
                    if self._stopping:
                        return
                lazy, compact = self._lazy_due, self._compact_due
                self._lazy_due = self._compact_due = False
            try:
                if compact:
                    self._compact_live()
                elif lazy:
                    self._capture()
                    self._journal.wait(self._journal.last)
                    if self._journal.size > max(COMPACT_BYTES, self._snapshot_size):
                        self._signal(compact=True)  # a long run of reads grows it too
            except OSError as error:  # the server goes on; a request that changes fails
                self._report(error)

    def _report(self, error: OSError) -> None:
        import sys

        print(f"patgate serve: cannot write the state: {error.strerror}", file=sys.stderr)

    # -- snapshots -----------------------------------------------------------------------------

    def document(self, current: dict[str, Any], through: int) -> dict[str, Any]:
        """What the snapshot holds."""
        return {
            "format": FORMAT,
            "seed": self.fake.deployment.seed,
            "control_token": self.fake.control_token,
            "world": dataclasses.asdict(self.fake.default_world),
            "seeded": self._seeded,
            "current": current,
            "journal_through": through,
        }

    def _write_snapshot(self, current: dict[str, Any], through: int) -> None:
        data = json.dumps(self.document(current, through), separators=(",", ":")).encode()
        write_atomically(self.path, data)
        self._snapshot_size = len(data)

    def _compact(self, through: int) -> None:
        """A snapshot of everything, then no journal (at start, before any request)."""
        from patgate.fake.state import export_state

        try:
            self._write_snapshot(export_state(self.fake.deployment), through)
            self._journal_path.unlink(missing_ok=True)
            self._old_path.unlink(missing_ok=True)
        except OSError as error:
            raise UsageError(f"cannot write the state file {self.path}: {error.strerror}") from None

    def _compact_live(self) -> None:
        """Fold the journal into a new snapshot while the server answers."""
        from patgate.fake.state import exclusive, export_state

        deployment = self.fake.deployment
        with exclusive(deployment):  # no entry is appended between the rotation and the export
            self._capture()
            if self._old_path.exists():
                # A compaction before this one failed to write its snapshot: the old journal
                # holds entries no snapshot has, so it is not replaced. The journal stays as
                # it is (its entries up to ``through`` are skipped when it is read).
                self._journal.wait(self._journal.last)
                through = self._journal.last
            else:
                through = self._journal.rotate(self._old_path)
            current = export_state(deployment)
        self._write_snapshot(current, through)
        self._old_path.unlink(missing_ok=True)

    def close(self) -> None:
        """Write the last changes and a final snapshot; release the lock."""
        from patgate.fake.state import export_state

        with self._wake:
            self._stopping = True
            self._wake.notify()
        self._writer.join(timeout=10)
        try:
            self._capture()
            self._journal.close()
            self._write_snapshot(export_state(self.fake.deployment), self._journal.last)
            self._journal_path.unlink(missing_ok=True)
        finally:
            self._state_lock.release()


def open_state(
    path: Path,
    urls: FakeUrls,
    *,
    seed: int,
    log_size: int | None,
    profile: Profile | None = None,
) -> Persistence:
    """Lock ``path``, read it (and its journal) if it exists, or start a new world there."""
    from filelock import FileLock, Timeout

    from patgate.fake.deployment import Deployment
    from patgate.harness import Fake

    refuse_symlink(path, "state file")
    try:  # before the lock file is made beside it: --state /dev/zero makes no /dev/zero.lock
        refuse_unless_regular(path)
    except FileRefused as error:
        raise UsageError(f"the state file {error}") from None
    lock_path = path.with_name(path.name + ".lock")
    refuse_symlink(lock_path, "lock file")
    lock = FileLock(lock_path, timeout=0, mode=0o600)
    try:
        lock.acquire()
    except Timeout:
        raise UsageError(
            f"another patgate serve uses the state file {path} (it holds {lock_path}); "
            "stop it first, or give another --state"
        ) from None
    except OSError as error:
        raise UsageError(f"cannot lock the state file {path}: {error.strerror}") from None
    try:
        _remove_stale_temporaries(path)
        journal = path.with_name(path.name + ".journal")
        old = path.with_name(path.name + ".journal.old")
        if path.exists():
            document = _read_snapshot(path)
            through = document.get("journal_through", 0)
            replayed, last = _read_journal(old, through)
            newer, last = _read_journal(journal, last)
            fake = _restore(document, replayed + newer, urls, log_size, profile)
        else:
            if journal.exists() or old.exists():
                raise UsageError(
                    f"{journal} exists without its state file {path}: restore the file, "
                    "or remove the journal to start afresh"
                )
            fake = Fake(
                deployment=Deployment(seed=seed, profile=profile), urls=urls, log_size=log_size
            )
            last = 0
        return Persistence(path, fake, lock, last)
    except BaseException:
        lock.release()
        raise
