"""Each creator's latest listing of their tokens, as the custodian reads and remembers it.

A listing is read entry by entry (:func:`~patgate.runner.connection.answers.token_listing`): an
entry that does not decode fully (an id that is not text, a name that is a list, no object
at all) is never deleted and never proof that a token is the run's, and it never shows a
token absent whose id or name it carries; the entries that decode still settle creates and
deletes. A create whose listings held such entries fails once it is settled
(:class:`~patgate.runner.custody.create_answers.MalformedListing`, naming each entry's
index and field).

A caller that asks for it (calibration's probes, each of whose creates is one request on a
slow network) may let the creator's latest listing stand for the one before a create: an
older listing proves as much, since the token must still be listed under the run's fresh
name, and the ids this custodian deleted since are left out of it (a deployment may give a
deleted id to the next token).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from patgate.errors import RequestFailed, UnexpectedAnswer
from patgate.runner.connection.answers import TokenListing, token_listing
from patgate.runner.connection.documents import Documents
from patgate.runner.model import Observed

__all__ = ["CreatorListings"]


def _digest(bearer: str) -> bytes:
    """A key for ``bearer`` that does not hold it."""
    return hashlib.sha256(bearer.encode("utf-8", "surrogatepass")).digest()


class CreatorListings:
    """The listings of one custodian's creators. Safe to share between threads."""

    def __init__(
        self, documents: Documents, send: Callable[[str, Mapping[str, Any] | None, str], Observed]
    ) -> None:
        self._documents = documents
        self._send = send
        self._latest: dict[bytes, frozenset[str]] = {}
        """Per creator (by a digest of its bearer): the ids its latest listing showed, less
        those deleted since (what a create may reuse as the listing before)."""
        self._thread = threading.local()  # each scenario's thread has its own last listing
        self._lock = threading.Lock()

    @property
    def problem(self) -> str:
        """Why this thread's last listing could not be read, if it could not."""
        return str(getattr(self._thread, "listing_problem", ""))

    @property
    def flaws(self) -> tuple[str, ...]:
        """The malformed entries of this thread's last listing, each by its index and field."""
        return tuple(getattr(self._thread, "listing_flaws", ()))

    def note_malformed_in(self, seen: dict[str, None] | None) -> None:
        """Add each malformed entry this thread's listings meet to ``seen`` (``None``: stop)."""
        self._thread.malformed = seen

    def read(self, bearer: str | None) -> TokenListing | None:
        """The tokens ``bearer`` lists, or ``None`` when they cannot be listed (no bearer, no
        answer, an answer of the wrong shape: :attr:`problem` says which). Entries that are
        not tokens are left out, and noted for the create under way."""
        if not bearer:
            return None
        query, variables = self._documents.viewer()
        try:
            listed = token_listing(self._send(query, variables, bearer))
        except (RequestFailed, UnexpectedAnswer) as error:
            self._thread.listing_problem = str(error)
            self._thread.listing_flaws = ()
            return None
        self._thread.listing_problem = ""
        self._thread.listing_flaws = tuple(entry.problem for entry in listed.malformed)
        noted: dict[str, None] | None = getattr(self._thread, "malformed", None)
        if noted is not None:
            noted.update(dict.fromkeys(self._thread.listing_flaws))
        self.saw(bearer, listed.ids())
        return listed

    def saw(self, bearer: str, ids: Iterable[str]) -> None:
        """``bearer``'s tokens were just listed (here, or by a caller): they have ``ids``."""
        with self._lock:
            self._latest[_digest(bearer)] = frozenset(ids)

    def latest_ids(self, bearer: str | None) -> frozenset[str] | None:
        """The ids ``bearer``'s latest listing showed, less those deleted since (``None``:
        not listed yet)."""
        if not bearer:
            return None
        with self._lock:
            return self._latest.get(_digest(bearer))

    def forget(self, token_id: str) -> None:
        """``token_id`` was deleted: left out of every latest listing."""
        with self._lock:
            for key, ids in self._latest.items():
                if token_id in ids:
                    self._latest[key] = ids - {token_id}
