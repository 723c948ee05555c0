"""The fake service's state and every operation on it, with the documented rules enforced.

``Deployment`` knows nothing of HTTP: callers pass plain values and get domain objects back
or a :class:`~patgate.errors.DomainError` naming the rule that refused them. One re-entrant
lock guards all state, so check-then-act rules (the cap of 5) hold under concurrency: each
operation checks the caller's role and acts under one hold of it, so a concurrent removal or
demotion lands wholly before or wholly after the operation.

Every operation reaches what it needs through an index (tokens by id, by id segment and by
owner; hubs by organization and by id), never by a scan of the deployment: listing one's tokens, the
cap check or a hubs page costs the same with ten users as with a hundred thousand, and the
lock is held for that short time only.

The fault seam. A test that needs a deployment breaking one rule subclasses ``Deployment``
and overrides public methods only: the operations themselves (``authenticate``,
``issue_client_token``, ``list_hubs``, ``list_tokens``, ``create_token``, ``delete_token``,
``role_of``, ``request_token_via_ui``) and the steps they are built from:

- :meth:`Deployment.mint_token`: the one place a PAT is stored (name check, cap, minting);
- :meth:`Deployment.forget_token`: the one place a PAT is removed;
- :meth:`Deployment.pat_secret_matches`: whether a presented value is a stored PAT's secret;
- :meth:`Deployment.user`: a user by id;
- :attr:`Deployment.lock_factory`: the lock around every operation;
- ``pat_format`` (:class:`~patgate.fake.pat_format.PatFormat`) and ``client_tokens``
  (:class:`~patgate.fake.client_tokens.ClientTokenIssuer`, whose ``verify_signature`` is its
  step) may be replaced by subclasses.

Faults on the wire (a status, ``Retry-After``, latency, a dropped connection, the rate limit)
are not subclasses: they are rules in ``faults`` (:class:`~patgate.fake.faults.Faults`), which
the wire app consults before answering.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import threading
import unicodedata
from collections.abc import Callable, Iterable
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, ClassVar

from patgate.basics.behaviours import OBSERVERS, note
from patgate.basics.reasons import Reason
from patgate.errors import (
    Forbidden,
    InvalidClient,
    InvalidRequest,
    NotFound,
    TokenLimitReached,
    Unauthenticated,
    UnsupportedGrantType,
)
from patgate.fake.client_tokens import ClientTokenIssuer, IssuedClientToken
from patgate.fake.clock import Clock
from patgate.fake.content import ContentRecord, ContentStore
from patgate.fake.faults import Faults
from patgate.fake.identifiers import IdFactory, global_id
from patgate.fake.model import (
    ApiClient,
    CreatedToken,
    Hub,
    HubPage,
    Organization,
    PatRecord,
    PatStatus,
    Principal,
    Role,
    User,
)
from patgate.fake.pat_format import DEFAULT_PREFIX, PatFormat, new_secret
from patgate.fake.profile import Profile, load_profile
from patgate.fake.refusal_reasons import (
    Revocations,
    client_credential_creation,
    client_credentials,
    not_admin,
    token_cap,
    user_named,
)

if TYPE_CHECKING:  # a change journal is set up only by ``patgate serve --state``
    from patgate.fake.changes import Changes

__all__ = [
    "MAX_TOKENS_PER_USER",
    "MAX_TOKEN_NAME_LENGTH",
    "AcceptedCallers",
    "Deployment",
    "name_problem",
]

MAX_TOKENS_PER_USER = 5
MAX_TOKEN_NAME_LENGTH = 255
"""The default profile's longest token name (``pat_name.max_length``)."""
_CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# What each refused Unicode category is called in the error (the rule's words).
_REFUSED_CATEGORIES = {
    "Cc": "control characters",
    "Cs": "lone surrogates",
    "Zl": "line separators",
    "Zp": "paragraph separators",
    "Cf": "invisible formatting characters",
}


def name_problem(name: str) -> str | None:
    """Why ``name`` is refused as a token name (its characters only), or ``None``.

    Refused: control characters (C0, DEL and C1, NEL U+0085 among them), lone surrogates,
    the line and paragraph separators U+2028 and U+2029, bidirectional overrides, embeddings,
    isolates and marks, and every other invisible formatting character (Unicode category
    Cf: U+200B, U+FEFF, ...). Each would let a name look like another on a page or a log
    line, or could not be encoded at all.
    """
    if name.isascii():
        found = _CONTROL_CHARACTER.search(name)
        if found is None:
            return None
        return _refusal(found.group(), found.start(), "control characters")
    for position, character in enumerate(name):
        if character in _BIDI_CONTROLS:
            return _refusal(character, position, "bidirectional controls")
        what = _REFUSED_CATEGORIES.get(unicodedata.category(character))
        if what is not None:
            return _refusal(character, position, what)
    return None


def _refusal(character: str, position: int, what: str) -> str:
    return f"name must not contain {what} (U+{ord(character):04X} at position {position})"


class AcceptedCallers:
    """Who each deployment's :meth:`Deployment.authenticate` accepted, in this context, while
    noting: for the request log, which names the caller of a request without checking its
    bearer a second time (a PAT's hash, the lock) after the endpoint has checked it.

    ``with``-less on purpose (it is on every request's path)::

        accepted = AcceptedCallers.start_noting()
        try:
            ...  # answer the request
            principal = accepted.principal(deployment, bearer)
        finally:
            accepted.stop()
    """

    __slots__ = ("_accepted", "_token")

    def __init__(self) -> None:
        self._accepted: list[tuple[Deployment, str, Principal]] = []
        self._token: Token[AcceptedCallers | None] | None = None

    @classmethod
    def start_noting(cls) -> AcceptedCallers:
        """Start noting in this context (until :meth:`stop`)."""
        accepted = cls()
        accepted._token = _NOTING.set(accepted)
        return accepted

    def stop(self) -> None:
        """Stop noting; what was noted is forgotten."""
        if self._token is not None:
            _NOTING.reset(self._token)
            self._token = None
        self._accepted.clear()

    def principal(self, deployment: Deployment, bearer: str | None) -> Principal | None:
        """Who ``deployment`` last accepted ``bearer`` as while noting, or ``None``."""
        for who, value, principal in reversed(self._accepted):
            if who is deployment and value == bearer:
                return principal
        return None


_NOTING: ContextVar[AcceptedCallers | None] = ContextVar("patgate_accepted_callers", default=None)


def _noted(deployment: Deployment, bearer: str, principal: Principal) -> Principal:
    noting = _NOTING.get()
    if noting is not None:
        noting._accepted.append((deployment, bearer, principal))
    return principal


class Deployment:
    """One fake deployment: organizations, users, API clients, hubs and tokens."""

    lock_factory: ClassVar[Callable[[], contextlib.AbstractContextManager[Any]]] = threading.RLock
    """Makes the one lock that guards all state (re-entrant). Part of the fault seam: a
    variant without it (``contextlib.nullcontext``) is what the race tests must catch."""

    def __init__(
        self,
        *,
        clock: Clock | None = None,
        pat_prefix: str = DEFAULT_PREFIX,
        expires_in: int | None = None,
        session_expires_in: int = 86400,
        max_tokens_per_user: int = MAX_TOKENS_PER_USER,
        seed: int = 0,
        profile: Profile | None = None,
    ) -> None:
        self.profile: Profile = profile if profile is not None else load_profile(None)
        """The choices where the documentation is silent (:mod:`patgate.fake.profile`); the
        domain reads the mask, the name limit, the listing order, the hubs' page sizes and
        ``lastUsedDate``'s interval, the wire layer the rest."""
        self.clock = clock if clock is not None else Clock()
        mask = self.profile.masked_token
        self.pat_format = PatFormat(
            pat_prefix,
            visible=mask.visible_characters,
            mask_character=mask.mask_character,
            mask_width=mask.mask_width,
        )
        self.client_tokens = ClientTokenIssuer(
            self.clock,
            expires_in=expires_in if expires_in is not None else self.profile.expires_in,
            session_expires_in=session_expires_in,
        )
        self.max_tokens_per_user = max_tokens_per_user
        self.seed = seed
        """The seed of the ids and of fault probabilities (``patgate serve --seed``)."""
        self.ids = IdFactory(seed)
        self._lock = type(self).lock_factory()
        self.organizations: dict[str, Organization] = {}
        self.users: dict[str, User] = {}
        self.clients: dict[str, ApiClient] = {}
        self.hubs: list[Hub] = []
        self.tokens: dict[str, PatRecord] = {}
        self._tokens_by_segment: dict[str, PatRecord] = {}
        self.revocations = Revocations()
        """Recently deleted PATs, so that a refusal tells a deleted token from a made-up one."""
        self.content = ContentStore()
        """The hubs' content resources (see :mod:`patgate.fake.content`)."""
        # Owner -> that user's records in creation order (the listing's "oldest first").
        self._tokens_by_owner: dict[str, dict[str, PatRecord]] = {}
        # Token id -> the owner it was filed under, so a record is unfiled from the right
        # place even if a test altered its ``user_id`` afterwards.
        self._owner_of: dict[str, str] = {}
        self._hubs_by_organization: dict[str, list[Hub]] = {}
        # Hub id -> the organization it was filed under and the hub: reading one hub costs
        # the same with three hubs as with a hundred thousand in the organization.
        self._hubs_by_id: dict[str, tuple[str, Hub]] = {}
        self.faults = self._new_faults(seed)
        """Fault rules on the wire and the rate-limit switch (see :mod:`patgate.fake.faults`)."""
        self.credential_observers: list[Callable[[str], None]] = []
        """Told of each client secret :meth:`add_client` issues (the request log redacts them)."""
        self.changes: Changes | None = None
        """Told of every change when set (``patgate serve --state``'s journal); see
        :mod:`patgate.fake.changes`."""

    def _new_faults(self, seed: int) -> Faults:
        """An empty fault book whose rate limit is the profile's."""
        limited = self.profile.refusals["rate_limited"]
        return Faults(
            self.clock,
            seed,
            requests_per_minute=self.profile.requests_per_minute,
            rate_limit_status=limited.status,
            rate_limit_code=limited.code,
            rate_limit_message=limited.message,
            counts_announced=self.profile.rate_limit_announce != "none",
        )

    def exclusive(self) -> contextlib.AbstractContextManager[Any]:
        """The deployment's lock (:attr:`lock_factory`): while held, no operation changes the state
        (an export, a restore, the journal of ``patgate serve --state``)."""
        return self._lock

    def track_changes(self, changes: Changes) -> None:
        """Tell ``changes`` of every change from now on, the clock's included."""
        self.changes = changes
        self.clock.on_change = changes.mark_clock

    # -- set-up and control (what a test does out of band) ---------------------------------

    def add_organization(self, name: str) -> Organization:
        """A new, empty organization."""
        with self._lock:
            org = Organization(self.ids.organization_id(), name)
            self.organizations[org.id] = org
            if self.changes is not None:
                self.changes.mark("organizations", org.id, ids=True)
            return org

    def add_user(
        self, name: str, email: str, organization_id: str, role: Role = Role.MEMBER
    ) -> User:
        """A new user, a member of ``organization_id`` with ``role``."""
        with self._lock:
            self._organization(organization_id)
            user_uuid = self.ids.uuid()
            user = User(global_id("User", user_uuid), user_uuid, name, email)
            user.memberships[organization_id] = Role(role)
            self.users[user.id] = user
            if self.changes is not None:
                self.changes.mark("users", user.id, ids=True)
            return user

    def add_client(self, user_id: str, organization_id: str) -> tuple[str, str]:
        """Issue an API key acting as ``user_id``; returns ``(client_id, client_secret)``."""
        with self._lock:
            self.user(user_id)
            self._organization(organization_id)
            client_id = self.ids.uuid()
            secret = new_secret()
            self.clients[client_id] = ApiClient(
                client_id, PatFormat.hash(secret), user_id, organization_id
            )
            for observer in self.credential_observers:
                observer(secret)
            if self.changes is not None:
                self.changes.mark("clients", client_id, ids=True)
            return client_id, secret

    def add_hub(self, organization_id: str, name: str, *, created_by: str, **fields: Any) -> Hub:
        """A new hub; ``fields`` may set label, description, status, settings and dates."""
        with self._lock:
            self._organization(organization_id)
            now = self.clock.now()
            hub = Hub(
                id=self.ids.hub_id(),
                organization_id=organization_id,
                name=name,
                label=fields.pop("label", name.replace("-", " ").title()),
                description=fields.pop("description", ""),
                status=fields.pop("status", "ACTIVE"),
                settings=fields.pop("settings", {}),
                created_by=created_by,
                created_date=fields.pop("created_date", now),
                last_modified_by=created_by,
                last_modified_date=fields.pop("last_modified_date", now),
            )
            if fields:
                raise TypeError(f"unknown hub fields: {sorted(fields)}")
            self.hubs.append(hub)
            self._hubs_by_organization.setdefault(organization_id, []).append(hub)
            self._hubs_by_id[hub.id] = (organization_id, hub)
            if self.changes is not None:
                self.changes.mark("hubs", hub.id, ids=True)
            return hub

    def set_role(self, user_id: str, organization_id: str, role: Role) -> None:
        """Add the user to the organization with ``role``, or change their role."""
        with self._lock:
            self._organization(organization_id)
            self.user(user_id).memberships[organization_id] = Role(role)
            if self.changes is not None:
                self.changes.mark("users", user_id)

    def remove_user(self, user_id: str, organization_id: str) -> None:
        """Remove the user from the organization; their PATs stay stored but stop working."""
        with self._lock:
            self.user(user_id).memberships.pop(organization_id, None)
            if self.changes is not None:
                self.changes.mark("users", user_id)

    def request_token_via_ui(self, user_id: str, organization_id: str, name: str) -> CreatedToken:
        """The management UI path: an admin's token is usable at once, anyone else's pends.

        The full value is returned here, as the UI shows it once; a pending token is listed
        but refused until :meth:`approve_token_request`.
        """
        with self._lock:
            user = self.user(user_id)
            role = user.memberships.get(organization_id)
            if role is None:
                raise Forbidden(
                    "the user is not a member of that organization", rule_id="PAT-REMOVED-USER"
                )
            status = PatStatus.ACTIVE if role is Role.ADMIN else PatStatus.PENDING
            return self.mint_token(user, organization_id, name, status)

    def approve_token_request(self, token_id: str, approver_id: str | None = None) -> PatRecord:
        """Make a pending token usable; ``approver_id``, when given, must be an admin."""
        with self._lock:
            record = self._pending(token_id)
            if approver_id is not None:
                approver = self.user(approver_id)
                if approver.memberships.get(record.organization_id) is not Role.ADMIN:
                    raise Forbidden("only an organization admin approves", rule_id="PAT-APPROVAL")
            record.status = PatStatus.ACTIVE
            if self.changes is not None:
                self.changes.mark("tokens", record.id)
            if OBSERVERS:
                note("PAT-APPROVAL", "approved")
            return record

    def reject_token_request(self, token_id: str) -> None:
        """A rejected request disappears (the real outcome is not published)."""
        with self._lock:
            record = self._pending(token_id)
            self.forget_token(record)
            self.revocations.add(record.id_segment, record, self.clock.now(), "rejected")
        if OBSERVERS:
            note("PAT-APPROVAL", "rejected")

    # -- the token endpoint ----------------------------------------------------------------

    def issue_client_token(
        self, client_id: str | None, client_secret: str | None, grant_type: str | None
    ) -> IssuedClientToken:
        """A client-credential token; an unknown id and a wrong secret fail alike."""
        if not grant_type:
            raise InvalidRequest(
                "grant_type is required",
                rule_id="TOKEN-GRANT-TYPE",
                reason=Reason("grant-type-missing", "grant_type missing"),
            )
        if grant_type != "client_credentials":
            raise UnsupportedGrantType(
                "only grant_type=client_credentials is supported",
                rule_id="TOKEN-GRANT-TYPE",
                reason=Reason(
                    "grant-type-unsupported",
                    f"grant_type {grant_type[:40]!r} is not client_credentials",
                ),
            )
        with self._lock:
            # An unknown id and a wrong secret take the same path and give the same answer.
            client = self.clients.get(client_id or "")
            expected = client.secret_hash if client else PatFormat.hash(secrets.token_hex(16))
            if (
                not (client_secret and self.pat_format.matches(client_secret, expected))
                or not client
            ):
                raise InvalidClient(
                    "client authentication failed",
                    reason=client_credentials(client_id, client is not None),
                )
            issued = self.client_tokens.issue(
                client.client_id, client.user_id, client.organization_id
            )
        if OBSERVERS:
            note("TOKEN-OK", "issued")
        return issued

    # -- authentication, validated on every use --------------------------------------------

    def authenticate(self, bearer: str | None) -> Principal:
        """Who ``bearer`` speaks for. Sets a PAT's ``lastUsedDate``.

        Raises :class:`Unauthenticated` for a missing, malformed, unknown, expired, deleted
        or pending token; membership and permission are checked by each operation.
        """
        if not bearer:
            raise Unauthenticated(
                "an authorization token is required",
                rule_id="AUTH-REQUIRED",
                reason=Reason("bearer-missing", "no bearer token: no Authorization header"),
            )
        id_segment = self.pat_format.id_segment_of(bearer)
        if id_segment is not None:
            return self._authenticate_pat(bearer, id_segment)
        if ClientTokenIssuer.looks_like_jwt(bearer):
            claims = self.client_tokens.verify(bearer)
            with self._lock:
                if claims.client_id not in self.clients:
                    raise Unauthenticated(
                        "the access token is not valid",
                        rule_id="AUTH-INVALID-TOKEN",
                        reason=Reason(
                            "bearer-not-issued",
                            f"the client token's API client {claims.client_id} no longer exists",
                        ),
                    )
            principal = Principal(claims.user_id, claims.organization_id, via="client")
            return _noted(self, bearer, principal)
        raise Unauthenticated(
            "the access token is not valid",
            rule_id="AUTH-INVALID-TOKEN",
            reason=Reason(
                "bearer-not-issued",
                "the bearer token was not issued by this fake: neither a PAT with prefix "
                f"{self.pat_format.prefix!r} nor a client-credential token (JWT)",
            ),
        )

    def identify(self, bearer: str | None) -> Principal | None:
        """Who ``bearer`` speaks for, or ``None``; unlike :meth:`authenticate`, changes nothing.

        For fault rules and the request log, which must not mark a token as used.
        """
        if not bearer:
            return None
        id_segment = self.pat_format.id_segment_of(bearer)
        if id_segment is not None:
            with self._lock:
                record = self._tokens_by_segment.get(id_segment)
                if record is None or not self.pat_secret_matches(bearer, record):
                    return None
                return Principal(
                    record.user_id, record.organization_id, via="pat", token_id=record.id
                )
        if ClientTokenIssuer.looks_like_jwt(bearer):
            claims = self.client_tokens.claims_of(bearer)
            if claims is None:
                return None
            return Principal(claims.user_id, claims.organization_id, via="client")
        return None

    def _authenticate_pat(self, value: str, id_segment: str) -> Principal:
        with self._lock:
            record = self._tokens_by_segment.get(id_segment)
            if record is None or not self.pat_secret_matches(value, record):
                raise Unauthenticated(
                    "the access token is not valid",
                    rule_id="AUTH-INVALID-TOKEN",
                    reason=self._unknown_pat_reason(id_segment, record),
                )
            if record.status is PatStatus.PENDING:
                raise Unauthenticated(
                    "the access token is waiting for an admin's approval",
                    rule_id="PAT-APPROVAL",
                    reason=Reason(
                        "pat-pending",
                        f"PAT {record.id} ({record.name[:64]!r}) waits for an admin's approval",
                    ),
                )
            now = self.clock.now()
            last = record.last_used_date
            interval = self.profile.last_used_interval
            if last is None or interval == 0 or (now - last).total_seconds() >= interval:
                record.last_used_date = now
                if self.changes is not None:
                    self.changes.mark_used(record.id)
            if OBSERVERS:
                note("PAT-LAST-USED", "set")
            principal = Principal(
                record.user_id, record.organization_id, via="pat", token_id=record.id
            )
            return _noted(self, value, principal)

    def pat_secret_matches(self, value: str, record: PatRecord) -> bool:
        """Whether ``value`` is the full value of the stored PAT ``record``."""
        return self.pat_format.matches(value, record.secret_hash)

    def role_of(self, principal: Principal) -> Role:
        """The caller's role in the token's organization; :class:`Forbidden` once removed."""
        with self._lock:
            user = self.users.get(principal.user_id)
            role = user.memberships.get(principal.organization_id) if user else None
            if role is None:
                raise Forbidden(
                    "the token's user is no longer a member of the organization",
                    rule_id="PAT-REMOVED-USER",
                    reason=Reason(
                        "owner-removed",
                        f"the token's owner, {user_named(user, principal.user_id)}, is no longer a "
                        f"member of organization {principal.organization_id}",
                    ),
                )
            return role

    # -- the content API -------------------------------------------------------------------

    def list_hubs(self, principal: Principal, *, page: int = 0, size: int | None = None) -> HubPage:
        """One page of the hubs of the caller's organization (content permission needed);
        ``size`` defaults to, and may not exceed, the profile's page sizes."""
        if size is None:
            size = self.profile.default_page_size
        maximum = self.profile.maximum_page_size
        if size > maximum and self.profile.over_maximum == "cut":
            size = maximum
        with self._lock:
            if not self.role_of(principal).can_read_content:
                raise Forbidden(
                    "the user has no permission to read content",
                    rule_id="PAT-LOST-PERMISSION",
                    reason=self._no_content_reason(principal),
                )
            if page < 0:
                raise InvalidRequest(
                    "page must be 0 or more",
                    rule_id="HUBS-HAL",
                    reason=Reason("argument-invalid", f"page {page} is below 0"),
                )
            if not 1 <= size <= maximum:
                raise InvalidRequest(
                    f"size must be between 1 and {maximum}",
                    rule_id="HUBS-HAL",
                    reason=Reason(
                        "argument-invalid",
                        f"page size {size} is outside 1 to {maximum} (the profile's maximum)",
                    ),
                )
            visible = self._hubs_in_order(principal.organization_id)
            start = page * size
            return HubPage(tuple(visible[start : start + size]), page, size, len(visible))

    def _hubs_in_order(self, organization_id: str) -> list[Hub]:
        """An organization's hubs in the profile's ``hubs.order`` (oldest first by default:
        the order they were filed in; newest first; by name either way)."""
        filed = self._hubs_by_organization.get(organization_id, [])
        order = self.profile.hub_order
        if order == "created_ascending":
            return filed
        if order == "created_descending":
            return filed[::-1]
        return sorted(filed, key=lambda hub: hub.name, reverse=order == "name_descending")

    def authorize_content_reader(self, principal: Principal) -> None:
        """Refuse (:class:`Forbidden`) a caller who was removed or may not read content."""
        if not self.role_of(principal).can_read_content:
            raise Forbidden(
                "the user has no permission to read content",
                rule_id="PAT-LOST-PERMISSION",
                reason=self._no_content_reason(principal),
            )

    def read_hub(self, principal: Principal, hub_id: str) -> Hub:
        """The hub ``hub_id``, for a caller who may read content in the hub's organization.

        Permission is judged first (403), then existence: another organization's hub is not
        found (404), exactly like one that does not exist.
        """
        with self._lock:
            self.authorize_content_reader(principal)
            filed = self._hubs_by_id.get(hub_id)
            if filed is not None and filed[0] == principal.organization_id:
                return filed[1]
        elsewhere = " (it belongs to another organization)" if filed is not None else ""
        raise NotFound(
            "no such hub",
            rule_id="CONTENT-ORG-SCOPE",
            reason=Reason(
                "not-found",
                f"no hub {hub_id[:80]!r} in organization {principal.organization_id}{elsewhere}",
            ),
        )

    def read_content_record(
        self, principal: Principal, kind: str, record_id: str, hub_id: str | None = None
    ) -> ContentRecord:
        """The record of ``kind`` with ``record_id`` (in ``hub_id`` when given), as for
        :meth:`read_hub`: 403 for a caller who may not read, 404 for another organization's."""
        self.authorize_content_reader(principal)
        record = self.content.get(kind, record_id)
        if record is None or (hub_id is not None and hub_id != record.hub_id):
            raise NotFound(
                f"no such {kind} record",
                rule_id="CONTENT-ORG-SCOPE",
                reason=Reason("not-found", f"no {kind} record {record_id[:80]!r} in this hub"),
            )
        self.read_hub(principal, record.hub_id)
        return record

    def seed_content(self) -> None:
        """Give every hub that has no content yet the default records (made when the content
        is first used)."""
        with self._lock:
            hubs = [hub for listed in self._hubs_by_organization.values() for hub in listed]
        self.content.seed_later(hubs)

    # -- the GraphQL operations ------------------------------------------------------------

    def viewer(self, principal: Principal) -> User:
        """The calling user, while still a member of the token's organization."""
        with self._lock:
            self.role_of(principal)
            return self.user(principal.user_id)

    def organizations_of(self, principal: Principal) -> list[Organization]:
        """The organizations the caller belongs to."""
        with self._lock:
            user = self.viewer(principal)
            return [self.organizations[org_id] for org_id in user.memberships]

    def list_tokens(self, principal: Principal) -> list[PatRecord]:
        """The caller's own tokens, pending ones included, in the profile's
        ``listing_order`` (oldest first by default)."""
        with self._lock:
            self.role_of(principal)
            owned = self._owned_by(principal.user_id)
        order = self.profile.listing_order
        if order == "created_descending":
            owned.reverse()
        elif order == "name_ascending":
            owned.sort(key=lambda record: (record.name, record.created_date))
        return owned

    def create_token(self, principal: Principal, name: str, organization_id: str) -> CreatedToken:
        """Create a PAT for the caller; only an admin of ``organization_id`` may."""
        with self._lock:
            role = self.role_of(principal)
            if organization_id != principal.organization_id or role is not Role.ADMIN:
                raise Forbidden(
                    "creating a token through the API needs organization admin permission",
                    rule_id="PAT-ADMIN-ONLY",
                    reason=self._create_refusal_reason(principal, organization_id, role),
                )
            if principal.via == "client" and self.profile.client_credentials_creation == "refused":
                raise Forbidden(
                    "creating a token needs a user's credential, not a client-credential token",
                    reason=client_credential_creation(
                        self.users.get(principal.user_id), principal.user_id
                    ),
                )
            created = self.mint_token(
                self.user(principal.user_id), organization_id, name, PatStatus.ACTIVE
            )
        if OBSERVERS:
            note("PAT-CREATE-FIELDS", "created")
        return created

    def delete_token(self, principal: Principal, token_id: str) -> PatRecord:
        """Delete one of the caller's tokens; another user's id looks like an unknown one."""
        with self._lock:
            self.role_of(principal)
            record = self.tokens.get(token_id)
            if record is None or record.user_id != principal.user_id:
                whose = " (it is another user's)" if record is not None else ""
                raise NotFound(
                    "no such personal access token",
                    rule_id="PAT-DELETE-OWN-ONLY",
                    reason=Reason(
                        "token-not-found",
                        f"no token {str(token_id)[:80]!r} among the caller's own{whose}",
                    ),
                )
            self.forget_token(record)
            self.revocations.add(
                record.id_segment, record, self.clock.now(), "deleted by its owner"
            )
        if OBSERVERS:
            note("PAT-DELETE", "deleted")
        return record

    # -- internals -------------------------------------------------------------------------

    def _unknown_pat_reason(self, id_segment: str, record: PatRecord | None) -> Reason:
        """Why a PAT-shaped bearer is refused: deleted, a wrong secret, or never issued."""
        if record is not None:
            return Reason(
                "pat-secret-mismatch",
                f"the PAT's id segment is token {record.id}'s but its secret is not",
            )
        revoked = self.revocations.reason(id_segment)
        if revoked is not None:
            return revoked
        return Reason(
            "bearer-not-issued",
            "the bearer token was not issued by this fake (a PAT-shaped value no token of "
            "this fake has)",
        )

    def _no_content_reason(self, principal: Principal) -> Reason:
        user = self.users.get(principal.user_id)
        return Reason(
            "no-content-permission",
            f"{user_named(user, principal.user_id)} has no content permission in organization "
            f"{principal.organization_id}",
        )

    def _create_refusal_reason(
        self, principal: Principal, organization_id: object, role: Role
    ) -> Reason:
        user = self.users.get(principal.user_id)
        if organization_id != principal.organization_id:
            return Reason(
                "foreign-organization",
                f"{user_named(user, principal.user_id)} creates in organization "
                f"{str(organization_id)[:80]!r}, not their token's "
                f"({principal.organization_id})",
            )
        return not_admin(user, principal.user_id, str(organization_id), role.value)

    def mint_token(
        self, user: User, organization_id: str, name: str, status: PatStatus
    ) -> CreatedToken:
        """Store a new PAT for ``user`` with ``status``; the value exists only in the result.

        Checks the name (PAT-CREATE-FIELDS) and the cap (PAT-CAP). Every create goes through
        here: the GraphQL mutation and the management-UI path.
        """
        name = self._valid_name(name)
        with self._lock:
            held = sum(1 for t in self._owned_by(user.id) if t.organization_id == organization_id)
            if held >= self.max_tokens_per_user:
                owned = [t for t in self._owned_by(user.id) if t.organization_id == organization_id]
                raise TokenLimitReached(
                    f"a user holds at most {self.max_tokens_per_user} personal access tokens",
                    rule_id="PAT-CAP",
                    reason=token_cap(user, owned, self.max_tokens_per_user),
                )
            minted = self.pat_format.mint()
            record = PatRecord(
                id=self.ids.token_id(user.uuid),
                user_id=user.id,
                organization_id=organization_id,
                name=name,
                id_segment=minted.id_segment,
                secret_hash=minted.secret_hash,
                masked=minted.masked,
                created_date=self.clock.now(),
                status=status,
            )
            self.tokens[record.id] = record
            self._tokens_by_segment[record.id_segment] = record
            self._tokens_by_owner.setdefault(user.id, {})[record.id] = record
            self._owner_of[record.id] = user.id
            if self.changes is not None:
                self.changes.mark("tokens", record.id, ids=True)
            return CreatedToken(record, minted.value)

    def _valid_name(self, name: object) -> str:
        if not isinstance(name, str) or not name.strip():
            raise InvalidRequest(
                "name must be a non-empty string",
                rule_id="PAT-CREATE-FIELDS",
                reason=Reason("name-invalid", "the token's name is empty or not text"),
            )
        longest = self.profile.name_max_length
        if len(name) > longest:
            raise InvalidRequest(
                f"name must be at most {longest} characters",
                rule_id="PAT-CREATE-FIELDS",
                reason=Reason(
                    "name-invalid",
                    f"the token's name has {len(name)} characters; the profile allows {longest}",
                ),
            )
        problem = name_problem(name)
        if problem is not None:
            raise InvalidRequest(
                problem,
                rule_id="PAT-CREATE-FIELDS",
                reason=Reason("name-invalid", f"the token's name: {problem}"),
            )
        return name

    def forget_token(self, record: PatRecord) -> None:
        """Remove a stored PAT: it stops working at once (a delete, a rejection)."""
        if self.changes is not None:
            self.changes.mark("tokens", record.id)
        self.tokens.pop(record.id, None)
        self._tokens_by_segment.pop(record.id_segment, None)
        owner = self._owner_of.pop(record.id, record.user_id)
        owned = self._tokens_by_owner.get(owner)
        if owned is not None:
            owned.pop(record.id, None)
            if not owned:
                del self._tokens_by_owner[owner]

    def _owned_by(self, user_id: str) -> list[PatRecord]:
        # Filtered by the record's own field too: the index never shows a record that is
        # no longer the user's, whatever changed it.
        owned = self._tokens_by_owner.get(user_id)
        return [t for t in owned.values() if t.user_id == user_id] if owned else []

    def _pending(self, token_id: str) -> PatRecord:
        record = self.tokens.get(token_id)
        if record is None or record.status is not PatStatus.PENDING:
            raise NotFound(
                "no such pending token request",
                rule_id="PAT-APPROVAL",
                reason=Reason("request-not-found", f"no pending request {token_id[:80]!r}"),
            )
        return record

    def find_hub(self, hub_id: str) -> Hub | None:
        """The hub with ``hub_id`` in any organization, or ``None`` (no permission check:
        for control code and the state journal)."""
        with self._lock:
            filed = self._hubs_by_id.get(hub_id)
            return filed[1] if filed is not None else None

    def user(self, user_id: str) -> User:
        """The user with ``user_id``; :class:`NotFound` for an unknown id."""
        try:
            return self.users[user_id]
        except KeyError:
            raise NotFound(f"no user {user_id!r}", rule_id="") from None

    def _organization(self, organization_id: str) -> Organization:
        try:
            return self.organizations[organization_id]
        except KeyError:
            raise NotFound(f"no organization {organization_id!r}", rule_id="") from None

    def replace_state(
        self,
        organizations: Iterable[Organization],
        users: Iterable[User],
        clients: Iterable[ApiClient],
        hubs: Iterable[Hub],
        tokens: Iterable[PatRecord],
    ) -> None:
        """Swap the whole state at once (a reset, a restored ``--state`` file).

        Every index is rebuilt here, from the records given.
        """
        with self._lock:
            self.revocations.clear()
            self.organizations = {org.id: org for org in organizations}
            self.users = {user.id: user for user in users}
            self.clients = {client.client_id: client for client in clients}
            self.hubs = list(hubs)
            self.tokens = {record.id: record for record in tokens}
            self._tokens_by_segment = {r.id_segment: r for r in self.tokens.values()}
            self._tokens_by_owner = {}
            self._owner_of = {}
            for record in self.tokens.values():  # in creation order, as the state lists them
                self._tokens_by_owner.setdefault(record.user_id, {})[record.id] = record
                self._owner_of[record.id] = record.user_id
            self._hubs_by_organization = {}
            self._hubs_by_id = {}
            for hub in self.hubs:
                self._hubs_by_organization.setdefault(hub.organization_id, []).append(hub)
                self._hubs_by_id[hub.id] = (hub.organization_id, hub)
            if self.changes is not None:
                self.changes.mark_full()

    def tokens_of(self, user_id: str) -> Iterable[PatRecord]:
        """A snapshot of a user's token records (for tests and control code)."""
        with self._lock:
            return self._owned_by(user_id)
