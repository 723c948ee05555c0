"""The one place tokens are created and deleted, always through the run's ledger.

A create is written to the ledger before it is sent. The id it returned is confirmed only
when the creator's listing shows it under the run's name and absent from a listing taken
just before the create; any other id (a token that already existed, someone else's, or one
not listed) is written down as a wrong id and never deleted, the token listed under the
run's name is recorded instead, and the create's step fails (:class:`WrongIdAnswered`). Any
other answer (a refusal, a timeout after the request left, a 5xx, a 429) is settled by
listing the creator's tokens and looking for the ledger's name; a create is never resent
before that, and a refusal is believed only when the name is not listed. A delete of an id
the ledger does not hold is refused and never sent. At the end, :meth:`Custodian.finish`
deletes whatever is still outstanding, settles what is still unknown, and lists once more to
check that what the ledger calls deleted is gone.

A listing is read entry by entry and remembered per creator
(:mod:`~patgate.runner.custody.creator_listings`); an entry that is not a token is never
deleted and never proof that a token is the run's.

Those end-of-run deletes (and ``patgate cleanup``'s) are sent only for an entry made on the
same deployment (:class:`~patgate.runner.custody.ledger.TargetIdentity`) whose id its creator still
lists under the recorded name: an id the deployment reused for another token is reported as
a mismatch and left alone, and an entry that cannot be checked stays open.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from patgate.checks import delete_succeeded
from patgate.errors import CreateRefused, RequestFailed, UnexpectedAnswer, WrongIdAnswered
from patgate.guards.redaction import Secret
from patgate.runner.connection.answers import TokenListing
from patgate.runner.connection.documents import Documents
from patgate.runner.connection.retries import RETRY_STATUSES, RetryPolicy
from patgate.runner.custody.create_answers import (
    PAT_CAP,
    MalformedListing,
    created_token_id,
    judge_claimed_id,
    malformed_note,
    refused_create,
    shown_id,
)
from patgate.runner.custody.creator_listings import CreatorListings
from patgate.runner.custody.ledger import Ledger, LedgerEntry, LedgerState, TargetIdentity
from patgate.runner.model import Observed

__all__ = [
    "PAT_CAP",
    "Custodian",
    "GraphqlSend",
    "MalformedListing",
    "created_token_id",
    "delete_succeeded",
    "refused_create",
]

GraphqlSend = Callable[[str, Mapping[str, Any] | None, str | None], Observed]
"""``(query, variables, bearer) -> answer``: a request that may be resent after a 429."""
DocumentSend = Callable[[str, Mapping[str, Any] | None], Observed]
"""``(query, variables) -> answer``, with the caller's bearer and headers."""

_FALLBACK_KEY = "admin_token"


class Custodian:
    """Creates and deletes tokens for one run (or for ``patgate cleanup``), through ``ledger``.

    ``send`` posts a GraphQL document with a bearer. ``bearer_of_key`` gives the value of a
    target key (``admin_token``): what cleanup deletes with when the run's own memory of
    the creator's token is gone.
    """

    def __init__(
        self,
        ledger: Ledger,
        documents: Documents,
        send: GraphqlSend,
        *,
        bearer_of_key: Callable[[str], str | None],
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        target: TargetIdentity | None = None,
    ) -> None:
        self.ledger = ledger
        self.target = target if target is not None else ledger.target
        """The deployment this custodian talks to."""
        self.problems: list[str] = []
        """Why entries were not deleted: another target, a name that does not match."""
        self.documents = documents
        self._send = send
        self._bearer_of_key = bearer_of_key
        self._retry = retry if retry is not None else RetryPolicy()
        self._sleep = sleep
        self._bearers: dict[str, Secret] = {}
        self._before: dict[str, frozenset[str] | None] = {}
        """Per create: the ids its creator listed just before it (``None``: no listing)."""
        self.listings = CreatorListings(documents, send)
        """Each creator's latest listing, and why this thread's last one failed."""
        self._lock = threading.Lock()  # the scenarios of a run create and sweep from threads

    # -- creating -------------------------------------------------------------------------------

    def create(
        self,
        name: str,
        send: Callable[[], Observed],
        *,
        bearer: str | None,
        bearer_key: str | None = None,
        token_id: Callable[[Observed], str | None] = created_token_id,
        refused: Callable[[Observed], bool] = refused_create,
        reuse_listing: bool = False,
    ) -> Observed:
        """Write ``name`` down, send the create, and record what became of it.

        ``reuse_listing``: the creator's latest listing (:meth:`latest_ids`) stands for the
        listing before the create, when there is one, saving a request.

        Raises :class:`CreateRefused` (nothing sent) for a name the ledger cannot track, and
        :class:`RequestFailed` when no answer came; its message says what a listing found.
        Once the create is settled, :class:`MalformedListing` when a listing it took held
        entries that are not tokens (a failure of its own, naming each entry's index and
        field; any other failure names them too).
        """
        seen: dict[str, None] = {}  # the malformed entries of this create's listings
        self.listings.note_malformed_in(seen)
        try:
            observed = self._create(
                name,
                send,
                bearer=bearer,
                bearer_key=bearer_key,
                token_id=token_id,
                refused=refused,
                reuse_listing=reuse_listing,
            )
        except RequestFailed as error:
            if not seen:
                raise
            # The entries first: a failure's message is cut to a few hundred characters.
            raise RequestFailed(f"{malformed_note(list(seen))}; {error}", sent=error.sent) from None
        except UnexpectedAnswer as error:
            if not seen:
                raise
            raise type(error)(f"{malformed_note(list(seen))}; {error}") from None
        finally:
            self.listings.note_malformed_in(None)
        if seen:
            raise MalformedListing(list(seen), observed)
        return observed

    def _create(
        self,
        name: str,
        send: Callable[[], Observed],
        *,
        bearer: str | None,
        bearer_key: str | None,
        token_id: Callable[[Observed], str | None],
        refused: Callable[[Observed], bool],
        reuse_listing: bool,
    ) -> Observed:
        self._write_down(name, bearer, bearer_key, reuse_listing=reuse_listing)
        attempt = 0
        while True:
            observed = self._send_create(name, send)
            try:
                made = token_id(observed)
            except UnexpectedAnswer as error:
                # The token may exist all the same: look for it by the run's name first.
                raise UnexpectedAnswer(
                    f"the create's answer: {error}; {self._settle(name)}"
                ) from None
            if made:
                self._verify(name, made)
                return observed
            if observed.status not in RETRY_STATUSES:
                break
            known, found = self._find(name)
            if found or not known:
                return observed
            # Listed and not there: the create was not done, so it may be sent again.
            delay = self._retry.delay(observed.status, observed.headers, attempt)
            if delay is None:
                return observed
            attempt += 1
            self._sleep(delay)
        # Even a clear refusal is believed only once a listing by the run's name agrees:
        # a deployment may make the token and still answer an error.
        known, found = self._find(name)
        if known and found is None and refused(observed):
            self.ledger.abandon(name)
        return observed

    def _write_down(
        self, name: str, bearer: str | None, bearer_key: str | None, *, reuse_listing: bool
    ) -> None:
        """Refuse a name the ledger cannot track; write the create down, with the ids its
        creator lists before it (the id it answers counts as the run's only once a listing
        shows it new since now, under the run's name)."""
        if not isinstance(name, str) or not name.startswith(self.ledger.name_prefix):
            raise CreateRefused(
                f"a token the run creates is named ${{new_name}} "
                f"({self.ledger.name_prefix}<n>, so the ledger can find it); got {name!r}"
            )
        if self.ledger.entry(name) is not None:
            raise CreateRefused(f"{name!r} was already used by this run; use a fresh ${{new_name}}")
        self.ledger.intend(name, bearer_key)
        if bearer:
            with self._lock:
                self._bearers[name] = Secret(bearer)
        before_ids = self.latest_ids(bearer) if reuse_listing else None
        if before_ids is None:
            before = self.listings.read(bearer)
            # A malformed entry's id is no token's proof, but it is not new after this either.
            before_ids = None if before is None else before.ids()
        with self._lock:
            self._before[name] = before_ids

    def _send_create(self, name: str, send: Callable[[], Observed]) -> Observed:
        """Send the create once; a failure that left says what a listing found of it."""
        try:
            return send()
        except RequestFailed as error:
            if not error.sent:
                self.ledger.abandon(name)
                raise
            raise RequestFailed(f"{error}; {self._settle(name)}") from None

    def _verify(self, name: str, claimed: str) -> None:
        """Confirm ``claimed`` (the id the create of ``name`` answered) once the creator's
        listing shows it, new since before the create, under ``name``. Anything else raises
        :class:`WrongIdAnswered`: the id is written down as a finding and never deleted, and
        the token listed under the run's name, if any, is the one recorded (and deleted)."""
        entry = self.ledger.entry(name)
        bearer, _ = self._bearer(entry) if entry is not None else (None, False)
        listed = self.listings.read(bearer)
        if listed is None:
            problem = self.listing_problem
            why = f" ({problem})" if problem else ""
            self.ledger.wrong_id(name, claimed, "not checked: no listing")
            raise WrongIdAnswered(
                f"the create answered id {shown_id(claimed)}, but its creator's tokens could not "
                f"be listed to check that it is the new token{why}; it is not deleted by id, and "
                "the run's name is looked for again at the end"
            )
        with self._lock:
            before = self._before.get(name)
        claim = judge_claimed_id(listed, before, claimed, name)
        if claim.ours is not None:
            self.ledger.confirm(name, claim.ours)
        if claim.wrong is None:
            return
        self.ledger.wrong_id(name, claimed, claim.wrong)
        raise WrongIdAnswered(claim.message(claimed))

    def _settle(self, name: str) -> str:
        known, found = self._find(name)
        if found:
            return f"a listing shows it was created as {found!r}; it will be deleted"
        if known:
            return "no token of that name is listed yet; it is looked for again at the end"
        return "the tokens could not be listed; it is looked for again at the end"

    def _find(self, name: str) -> tuple[bool, str | None]:
        """``(listed, id)``: whether the creator's tokens could be listed, and the id of the
        one named ``name``, new since before its create (confirmed in the ledger)."""
        entry = self.ledger.entry(name)
        bearer, _ = self._bearer(entry) if entry is not None else (None, False)
        listed = self.listings.read(bearer)
        if listed is None:
            return False, None
        with self._lock:
            before = self._before.get(name)
        for token in listed.tokens:
            if token.name == name and (before is None or token.id not in before):
                self.ledger.confirm(name, token.id)
                return True, token.id
        if listed.may_hold(None, name):
            # Perhaps the run's token, but never proof of it: neither found nor absent.
            self._problem(f"{name}: listed only in a malformed entry; not deleted")
            return False, None
        return True, None

    @property
    def listing_problem(self) -> str:
        """Why this thread's last listing could not be read, if it could not."""
        return self.listings.problem

    @property
    def listing_flaws(self) -> tuple[str, ...]:
        """The malformed entries of this thread's last listing, each by its index and field
        (the listing held that many entries more than its tokens)."""
        return self.listings.flaws

    def _deleted(self, token_id: str) -> None:
        """The ledger's ``token_id`` is gone: recorded, and left out of the latest listings."""
        self.ledger.deleted(token_id)
        self.listings.forget(token_id)

    def saw(self, bearer: str, ids: Iterable[str]) -> None:
        """``bearer``'s tokens were just listed (here, or by a caller): they have ``ids``."""
        self.listings.saw(bearer, ids)

    def latest_ids(self, bearer: str | None) -> frozenset[str] | None:
        """The ids ``bearer``'s latest listing showed, less those this custodian deleted
        since (``None``: not listed yet)."""
        return self.listings.latest_ids(bearer)

    def lists_as(self, bearer: str | None, token_id: str, name: str) -> bool | None:
        """Whether ``bearer``'s listing shows ``token_id`` named ``name`` (``None``: the
        tokens could not be listed). What a token made outside :meth:`create` must pass
        before it is adopted and deleted."""
        listed = self.listings.read(bearer)
        if listed is None:
            return None
        return any(t.id == token_id and t.name == name for t in listed.tokens)

    def _bearer(self, entry: LedgerEntry) -> tuple[str | None, bool]:
        """The creator's token (and ``True``), or the admin's as a fallback (``False``)."""
        with self._lock:
            remembered = self._bearers.get(entry.name)
        if remembered is not None:
            return remembered.reveal(), True
        if entry.bearer_key:
            value = self._bearer_of_key(entry.bearer_key)
            if value:
                return value, True
        return self._bearer_of_key(_FALLBACK_KEY), False

    # -- deleting -------------------------------------------------------------------------------

    def delete(self, token_id: str, send: DocumentSend, *, cleanup: bool) -> Observed | None:
        """Delete ``token_id`` through ``send``, if the ledger holds it.

        Raises :class:`~patgate.runner.custody.ledger.ForeignDeleteRefused` (nothing sent) for an
        id this run did not create. In ``cleanup``, an id already deleted is not sent again
        (``None``); in a step it is (deleting twice is a question a scenario may ask).
        """
        entry = self.ledger.check_delete(token_id)
        if cleanup and entry.state is not LedgerState.CREATED:
            return None
        observed = self._delete_document(token_id, send)
        if delete_succeeded(observed):
            self._deleted(token_id)
        return observed

    def gone(self, token_id: str) -> None:
        """A token of the ledger vanished another way (a rejected approval request)."""
        self._deleted(token_id)

    def _delete_document(self, token_id: str, send: DocumentSend) -> Observed:
        query, variables = self.documents.delete_token(token_id)
        observed = send(query, variables)
        if self.documents.learn_delete_from(observed, token_id, query):
            query, variables = self.documents.delete_token(token_id)
            observed = send(query, variables)
        return observed

    # -- sweeping -------------------------------------------------------------------------------

    def sweep(self, names: Iterable[str] | None = None, *, final: bool = False) -> None:
        """Delete the outstanding entries (those named, or all), settling pending ones by
        listing; ``final``: a pending create not listed is recorded as never made."""
        chosen = None if names is None else set(names)
        listings: dict[str, TokenListing | None] = {}
        for entry in self.ledger.outstanding():
            if chosen is not None and entry.name not in chosen:
                continue
            if not self._same_target(entry):
                continue
            if entry.state is LedgerState.PENDING:
                known, found = self._find(entry.name)
                if found is None:
                    if known and final:
                        self.ledger.absent(entry.name)
                    continue
                listings.clear()  # the listing that found it is newer than any kept
            self._sweep_one(entry, listings)

    def _same_target(self, entry: LedgerEntry) -> bool:
        if entry.target is None or self.target is None:
            return True
        if entry.target.same_deployment(self.target):
            return True
        self._problem(
            f"{entry.name}: made on another target ({entry.target.describe()}), not on "
            f"{self.target.describe()}; not deleted here"
        )
        return False

    def _problem(self, text: str) -> None:
        with self._lock:
            if text not in self.problems:
                self.problems.append(text)

    def _verified(self, entry: LedgerEntry, listings: dict[str, TokenListing | None]) -> bool:
        """Whether a delete of ``entry``'s id may be sent: only when its creator's listing
        shows the id under ``entry``'s name. Another name is recorded as a mismatch. An id
        its creator does not list is gone already (nothing is sent: an admin may be able to
        delete someone else's token by its id); when the creator's own token is unknown and
        the fallback's listing lacks it, it cannot be checked and stays open."""
        bearer, creator = self._bearer(entry)
        if not bearer:
            return False
        if bearer not in listings:
            listings[bearer] = self.listings.read(bearer)
        listed = listings[bearer]
        if listed is None:
            self._problem(f"{entry.name}: its creator's tokens could not be listed; not deleted")
            return False
        token = next((t for t in listed.tokens if t.id == entry.token_id), None)
        if token is None and listed.may_hold(entry.token_id, entry.name):
            # Its id or name in an entry that is not a token: never deleted, nor called gone.
            self._problem(f"{entry.name}: listed only in a malformed entry; not deleted")
            return False
        if token is not None and token.name != entry.name:
            # The deployment reused the id (a restart?): never name the other token here.
            reason = f"the token listed under {entry.token_id!r} has another name"
            self.ledger.mismatch(entry.name, reason)
            self._problem(f"{entry.name}: mismatch, {reason}; not deleted")
            return False
        if token is None:
            if creator and entry.token_id is not None:
                self._deleted(entry.token_id)  # not among its creator's tokens: gone
            else:
                self._problem(
                    f"{entry.name}: not among the tokens of {_FALLBACK_KEY}, and its creator's "
                    "token is not known to check; not deleted"
                )
            return False
        return True

    def _sweep_one(self, entry: LedgerEntry, listings: dict[str, TokenListing | None]) -> None:
        token_id = entry.token_id
        bearer, creator = self._bearer(entry)
        if token_id is None or not bearer:
            return
        if not self._verified(entry, listings):
            return

        def send(query: str, variables: Mapping[str, Any] | None) -> Observed:
            return self._send(query, variables, bearer)

        try:
            observed = self._delete_document(token_id, send)
        except RequestFailed:
            return
        if delete_succeeded(observed):
            self._deleted(token_id)
            return
        listed = self.listings.read(bearer) if creator else None
        if (
            listed is not None
            and token_id not in listed.ids()
            and not listed.may_hold(token_id, entry.name)
        ):
            # Not among its creator's tokens: it is gone already.
            self._deleted(token_id)

    def finish(self, *, settle: float = 0.0) -> None:
        """The end of a run: sweep everything, then check by listing that what the ledger
        calls deleted is gone; a token still listed is deleted again, or stays leaked.

        A create whose answer never came may still be under way on the deployment: when one
        is not listed, the last listing waits ``settle`` seconds before it calls it absent.
        """
        self.sweep()
        if settle > 0 and any(e.state is LedgerState.PENDING for e in self.ledger.outstanding()):
            self._sleep(settle)
        self.sweep(final=True)
        stale = self._still_listed()
        if not stale:
            return
        for entry in stale:
            self.ledger.reopen(entry.name)
        self.sweep(final=True)
        for entry in self._still_listed():
            self.ledger.reopen(entry.name)

    def _still_listed(self) -> list[LedgerEntry]:
        """Entries the ledger calls deleted whose token is still listed by its creator."""
        deleted = [
            e for e in self.ledger.entries() if e.state is LedgerState.DELETED and e.token_id
        ]
        by_bearer: dict[str, list[LedgerEntry]] = {}
        for entry in deleted:
            bearer, creator = self._bearer(entry)
            if bearer and creator:
                by_bearer.setdefault(bearer, []).append(entry)
        stale: list[LedgerEntry] = []
        for bearer, entries in by_bearer.items():
            listed = self.listings.read(bearer)
            if listed is None:
                continue
            ids = listed.ids()
            stale.extend(
                entry
                for entry in entries
                if entry.token_id in ids or listed.may_hold(entry.token_id, entry.name)
            )
        return stale
