"""Faults injected into the fake from the test side: a Deployment subclass, or an app wrapper
that alters answers on the way out. Nothing here ships in the package.

Every subclass overrides only the domain's public fault seam (see ``patgate.fake.deployment``):
operations and the documented steps ``mint_token``, ``forget_token``, ``pat_secret_matches``,
``user`` and ``ClientTokenIssuer.verify_signature``; no private member of the domain is used.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from patgate.errors import (
    Forbidden,
    InvalidClient,
    NotFound,
    TokenLimitReached,
    Unauthenticated,
)
from patgate.fake.client_tokens import (
    ClientTokenClaims,
    ClientTokenIssuer,
    IssuedClientToken,
    VerifiedClientToken,
)
from patgate.fake.deployment import Deployment
from patgate.fake.model import (
    CreatedToken,
    HubPage,
    PatRecord,
    PatStatus,
    Principal,
    Role,
    User,
)
from patgate.fake.pat_format import MintedPat, PatFormat
from patgate.harness import Fake
from patgate.wire.messages import WireHandler, WireRequest, WireResponse

Wrap = Callable[[WireHandler], WireHandler]


@dataclass(frozen=True)
class Fault:
    """One injected fault, the rule whose scenarios catch it, and the rules expected to fail."""

    name: str
    rule: str
    fails: frozenset[str]
    deployment: Callable[[], Deployment] = Deployment
    wrap_app: Wrap | None = None
    after: Callable[[Fake], None] | None = field(default=None)
    whole_suite: frozenset[str] | None = None
    """Rules that fail when every scenario runs; ``None`` when the fault breaks the shared
    state so much (tokens never deleted, PATs expired) that later scenarios fail too."""

    def fake(self) -> Fake:
        fake = Fake(deployment=self.deployment(), wrap_app=self.wrap_app)
        if self.after is not None:
            self.after(fake)
        return fake


def rewrite(path_end: str, change: Callable[[WireRequest, WireResponse, Any], Any]) -> Wrap:
    """Wrap the app so that JSON answers to URLs ending in ``path_end`` pass through ``change``."""

    def wrap(app: WireHandler) -> WireHandler:
        def handler(request: WireRequest) -> WireResponse | None:
            response = app(request)
            if response is None or not request.url.split("?")[0].endswith(path_end):
                return response
            try:
                body = json.loads(response.body)
            except ValueError:
                return response
            changed = change(request, response, body)
            if isinstance(changed, WireResponse):
                return changed
            return WireResponse(response.status, response.headers, json.dumps(changed).encode())

        return handler

    return wrap


def _walk(value: Any, change: Callable[[str, Any], Any]) -> Any:
    if isinstance(value, dict):
        return {k: change(k, _walk(v, change)) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, change) for v in value]
    return value


# -- the token endpoint -------------------------------------------------------------------------


def _expires_in_as_text(request: WireRequest, response: WireResponse, body: Any) -> Any:
    if response.status == 200 and "expires_in" in body:
        body["expires_in"] = str(body["expires_in"])
    return body


def _bad_credentials_401(request: WireRequest, response: WireResponse, body: Any) -> Any:
    if response.status == 400 and body.get("error") == "invalid_client":
        return WireResponse(401, response.headers, response.body)
    return body


class AcceptsAnySecret(Deployment):
    def issue_client_token(
        self, client_id: str | None, client_secret: str | None, grant_type: str | None
    ) -> IssuedClientToken:
        try:
            return super().issue_client_token(client_id, client_secret, grant_type)
        except InvalidClient:
            client = self.clients.get(client_id or "") or next(iter(self.clients.values()))
            return self.client_tokens.issue(
                client.client_id, client.user_id, client.organization_id
            )


class AnyGrantType(Deployment):
    def issue_client_token(
        self, client_id: str | None, client_secret: str | None, grant_type: str | None
    ) -> IssuedClientToken:
        return super().issue_client_token(client_id, client_secret, "client_credentials")


def _client_tokens_never_expire(fake: Fake) -> None:
    fake.deployment.client_tokens.leeway = 10**9


class _UncheckedSignatures(ClientTokenIssuer):
    """Reads a client token's claims without checking that this issuer signed them."""

    def verify_signature(self, token: str) -> VerifiedClientToken:
        import jwt

        try:
            claims = jwt.decode(token, options={"verify_signature": False})
            return VerifiedClientToken(
                ClientTokenClaims(str(claims["sub"]), str(claims["uid"]), str(claims["org"])),
                expires_at=int(claims["exp"]),
                not_before=int(claims.get("nbf", claims["iat"])),
            )
        except (jwt.PyJWTError, KeyError, TypeError, ValueError):
            return super().verify_signature(token)


class SignatureNotChecked(Deployment):
    def __init__(self) -> None:
        super().__init__()
        self.client_tokens = _UncheckedSignatures(self.clock)


# -- bearer authorization -----------------------------------------------------------------------


class _AdminFallback(Deployment):
    def admin_principal(self) -> Principal:
        admin = next(u for u in self.users.values() if Role.ADMIN in u.memberships.values())
        return Principal(admin.id, next(iter(admin.memberships)), via="client")


class NoTokenNeeded(_AdminFallback):
    def authenticate(self, bearer: str | None) -> Principal:
        return self.admin_principal() if not bearer else super().authenticate(bearer)


class GarbageAccepted(_AdminFallback):
    def authenticate(self, bearer: str | None) -> Principal:
        if bearer and not bearer.startswith(self.pat_format.prefix) and bearer.count(".") != 2:
            return self.admin_principal()
        return super().authenticate(bearer)


class PatSecretNotChecked(Deployment):
    """Finds a PAT by its id segment and never compares the secret segment."""

    def pat_secret_matches(self, value: str, record: PatRecord) -> bool:
        return True


class ContentRefuses(Deployment):
    """The content API refuses one kind of bearer (``via``)."""

    via = ""

    def list_hubs(self, principal: Principal, *, page: int = 0, size: int = 20) -> HubPage:
        if principal.via == self.via:
            raise Forbidden("not with this kind of token")
        return super().list_hubs(principal, page=page, size=size)


class ContentRefusesPats(ContentRefuses):
    via = "pat"


class ContentRefusesClientTokens(ContentRefuses):
    via = "client"


# -- creating PATs ------------------------------------------------------------------------------


class IgnoresTheName(Deployment):
    def create_token(self, principal: Principal, name: str, organization_id: str) -> CreatedToken:
        return super().create_token(principal, "token", organization_id)


class TildeFormat(PatFormat):
    """Mints ``<prefix><id>~<secret>``: a tilde where the dot should be."""

    def mint(self) -> MintedPat:
        minted = super().mint()
        return MintedPat(
            minted.value.replace(".", "~"),
            minted.id_segment,
            self.hash(minted.value.replace(".", "~")),
            minted.masked,
        )

    def id_segment_of(self, value: str) -> str | None:
        return super().id_segment_of(value.replace("~", "."))


class NoDotInTokens(Deployment):
    def __init__(self) -> None:
        super().__init__()
        self.pat_format = TildeFormat(self.pat_format.prefix)


def _created_without_milliseconds(request: WireRequest, response: WireResponse, body: Any) -> Any:
    # Only createdDate is documented "with milliseconds"; lastUsedDate keeps its own.
    def change(key: str, value: Any) -> Any:
        if key == "createdDate" and isinstance(value, str):
            return re.sub(r"\.\d{3}Z$", "Z", value)
        return value

    return _walk(body, change)


def _last_used_in_local_time(request: WireRequest, response: WireResponse, body: Any) -> Any:
    # An ISO 8601 timestamp, but not in UTC: lastUsedDate is documented as UTC.
    def change(key: str, value: Any) -> Any:
        if key == "lastUsedDate" and isinstance(value, str):
            return re.sub(r"Z$", "+01:00", value)
        return value

    return _walk(body, change)


def listings_showing(shown: Callable[[str], str]) -> Wrap:
    """Listings show ``shown(value)`` for every token created through the API."""

    def wrap(app: WireHandler) -> WireHandler:
        revealed: dict[str, str] = {}

        def change(request: WireRequest, response: WireResponse, body: Any) -> Any:
            data = body.get("data") or {}
            created = data.get("createPersonalAccessToken")
            if isinstance(created, dict) and "token" in created:
                revealed[created["id"]] = created["token"]
            viewer = data.get("viewer")
            if isinstance(viewer, dict):
                for entry in viewer.get("personalAccessTokens") or []:
                    if entry.get("id") in revealed:
                        entry["token"] = shown(revealed[entry["id"]])
            return body

        return rewrite("/graphql", change)(app)

    return wrap


_full_token_in_listings = listings_showing(lambda value: value)


def _start_without_asterisks(request: WireRequest, response: WireResponse, body: Any) -> Any:
    # Spec 2.1: "the rest is replaced by asterisks"; here the rest is just cut off.
    viewer = (body.get("data") or {}).get("viewer")
    if isinstance(viewer, dict):
        for entry in viewer.get("personalAccessTokens") or []:
            entry["token"] = entry["token"].rstrip("*")
    return body


class MembersCreate(Deployment):
    def create_token(self, principal: Principal, name: str, organization_id: str) -> CreatedToken:
        self.role_of(principal)
        return self.mint_token(
            self.user(principal.user_id), organization_id, name, PatStatus.ACTIVE
        )


class CreatesForSomeoneElse(Deployment):
    def create_token(self, principal: Principal, name: str, organization_id: str) -> CreatedToken:
        created = super().create_token(principal, name, organization_id)
        other = next(u for u in self.users.values() if u.id != principal.user_id)
        created.record.user_id = other.id
        return created


class CapCountsDeletedTokens(Deployment):
    """Counts every token a user ever made against the cap, deleted ones included."""

    def __init__(self) -> None:
        super().__init__()
        self.ever_made: dict[str, int] = {}

    def mint_token(
        self, user: User, organization_id: str, name: str, status: PatStatus
    ) -> CreatedToken:
        if self.ever_made.get(user.id, 0) >= self.max_tokens_per_user:
            raise TokenLimitReached("a user holds at most 5 personal access tokens")
        created = super().mint_token(user, organization_id, name, status)
        self.ever_made[user.id] = self.ever_made.get(user.id, 0) + 1
        return created


def _cap(limit: int) -> Callable[[], Deployment]:
    return lambda: Deployment(max_tokens_per_user=limit)


# -- listing and using PATs ---------------------------------------------------------------------


class ListsEveryone(Deployment):
    def list_tokens(self, principal: Principal) -> list[PatRecord]:
        self.role_of(principal)
        return list(self.tokens.values())


class NeverMarksUse(Deployment):
    def authenticate(self, bearer: str | None) -> Principal:
        principal = super().authenticate(bearer)
        if principal.token_id is not None:
            self.tokens[principal.token_id].last_used_date = None
        return principal


class HidesTheTokenInUse(Deployment):
    def list_tokens(self, principal: Principal) -> list[PatRecord]:
        return [t for t in super().list_tokens(principal) if t.id != principal.token_id]


# -- deleting PATs ------------------------------------------------------------------------------


class DeleteIsANoOp(Deployment):
    def delete_token(self, principal: Principal, token_id: str) -> PatRecord:
        self.role_of(principal)
        record = self.tokens.get(token_id)
        if record is None or record.user_id != principal.user_id:
            raise NotFound("no such personal access token")
        return record


class AnyoneDeletes(Deployment):
    def delete_token(self, principal: Principal, token_id: str) -> PatRecord:
        self.role_of(principal)
        record = self.tokens.get(token_id)
        if record is None:
            raise NotFound("no such personal access token")
        self.forget_token(record)
        return record


# -- validated on every use ---------------------------------------------------------------------


class RemovalIgnored(Deployment):
    def role_of(self, principal: Principal) -> Role:
        user = self.users.get(principal.user_id)
        if user is not None and principal.organization_id not in user.memberships:
            return Role.MEMBER
        return super().role_of(principal)


class RemovalNoticedLate(Deployment):
    """Remembers each user's last role and keeps using it after a removal."""

    def __init__(self) -> None:
        super().__init__()
        self.last_roles: dict[str, Role] = {}

    def role_of(self, principal: Principal) -> Role:
        try:
            role = super().role_of(principal)
        except Forbidden:
            if principal.user_id in self.last_roles:
                return self.last_roles[principal.user_id]
            raise
        self.last_roles[principal.user_id] = role
        return role


class ContentIgnoresPermission(Deployment):
    def list_hubs(self, principal: Principal, *, page: int = 0, size: int = 20) -> HubPage:
        self.role_of(principal)
        visible = [h for h in self.hubs if h.organization_id == principal.organization_id]
        return HubPage(tuple(visible[page * size : (page + 1) * size]), page, size, len(visible))


class NoApprovalNeeded(Deployment):
    def request_token_via_ui(self, user_id: str, organization_id: str, name: str) -> CreatedToken:
        return self.mint_token(self.user(user_id), organization_id, name, PatStatus.ACTIVE)


class PatsExpireAfterADay(Deployment):
    def authenticate(self, bearer: str | None) -> Principal:
        principal = super().authenticate(bearer)
        if principal.token_id is not None:
            record = self.tokens[principal.token_id]
            if self.clock.now() - record.created_date > timedelta(days=1):
                raise Unauthenticated("the access token has expired")
        return principal


def _single_hub_without_authorization(app: WireHandler) -> WireHandler:
    """One hub's path answers 200 whatever the bearer (the listing still checks it)."""

    def handler(request: WireRequest) -> WireResponse | None:
        response = app(request)
        path = request.url.split("?")[0]
        if response is not None and "/v2/content/hubs/" in path and response.status in (401, 403):
            return WireResponse(200, (("Content-Type", "application/hal+json"),), b"{}")
        return response

    return handler


def _set(*rules: str) -> frozenset[str]:
    return frozenset(rules)


FAULTS: tuple[Fault, ...] = (
    Fault(
        "one hub's path answers without a valid bearer",
        "CONTENT-AUTH-EVERY-PATH",
        _set("CONTENT-AUTH-EVERY-PATH"),
        wrap_app=_single_hub_without_authorization,
        whole_suite=_set("CONTENT-AUTH-EVERY-PATH"),
    ),
    Fault(
        "expires_in is a string",
        "TOKEN-OK",
        _set("TOKEN-OK"),
        wrap_app=rewrite("/oauth/token", _expires_in_as_text),
        whole_suite=_set("TOKEN-OK"),
    ),
    Fault(
        "a bad secret answers 200",
        "TOKEN-BAD-CREDENTIALS",
        _set("TOKEN-BAD-CREDENTIALS"),
        deployment=AcceptsAnySecret,
    ),
    Fault(
        "a bad secret answers 401",
        "TOKEN-BAD-CREDENTIALS",
        _set("TOKEN-BAD-CREDENTIALS"),
        wrap_app=rewrite("/oauth/token", _bad_credentials_401),
        whole_suite=_set("TOKEN-BAD-CREDENTIALS"),
    ),
    Fault(
        "any grant type gets a token",
        "TOKEN-GRANT-TYPE",
        _set("TOKEN-GRANT-TYPE"),
        deployment=AnyGrantType,
    ),
    Fault(
        "client tokens never expire",
        "CLIENT-TOKEN-EXPIRY",
        _set("CLIENT-TOKEN-EXPIRY"),
        after=_client_tokens_never_expire,
    ),
    Fault(
        "a client token's signature is not checked",
        "AUTH-INVALID-TOKEN",
        _set("AUTH-INVALID-TOKEN"),
        deployment=SignatureNotChecked,
        whole_suite=_set("AUTH-INVALID-TOKEN"),
    ),
    Fault(
        "a PAT's secret segment is not checked",
        "AUTH-INVALID-TOKEN",
        _set("AUTH-INVALID-TOKEN"),
        deployment=PatSecretNotChecked,
        whole_suite=_set("AUTH-INVALID-TOKEN"),
    ),
    Fault("no token needed", "AUTH-REQUIRED", _set("AUTH-REQUIRED"), deployment=NoTokenNeeded),
    Fault(
        "a garbage token is accepted",
        "AUTH-INVALID-TOKEN",
        _set("AUTH-INVALID-TOKEN"),
        deployment=GarbageAccepted,
    ),
    Fault(
        "the content API refuses client tokens",
        "CONTENT-CLIENT-TOKEN",
        _set("CONTENT-CLIENT-TOKEN"),
        deployment=ContentRefusesClientTokens,
    ),
    Fault(
        "the content API refuses PATs",
        "CONTENT-PAT",
        _set("CONTENT-PAT"),
        deployment=ContentRefusesPats,
        # The single-hub scenario finds its hub link with a PAT: with no link advertised,
        # CONTENT-AUTH-EVERY-PATH is not checked (an unmet precondition), never failed.
        whole_suite=_set("CONTENT-PAT"),
    ),
    Fault(
        "the create ignores the name",
        "PAT-CREATE-FIELDS",
        _set("PAT-CREATE-FIELDS"),
        deployment=IgnoresTheName,
    ),
    Fault("tokens have no dot", "PAT-FORMAT", _set("PAT-FORMAT"), deployment=NoDotInTokens),
    Fault(
        "createdDate loses its milliseconds",
        "PAT-DATE-FORMAT",
        _set("PAT-DATE-FORMAT"),
        wrap_app=rewrite("/graphql", _created_without_milliseconds),
        whole_suite=_set("PAT-DATE-FORMAT"),
    ),
    Fault(
        "lastUsedDate is given in local time",
        "PAT-DATE-FORMAT",
        _set("PAT-DATE-FORMAT"),
        wrap_app=rewrite("/graphql", _last_used_in_local_time),
        whole_suite=_set("PAT-DATE-FORMAT"),
    ),
    Fault(
        "the listing returns the full token",
        "PAT-SINGLE-REVEAL",
        _set("PAT-SINGLE-REVEAL", "PAT-LIST-MASKED"),
        wrap_app=_full_token_in_listings,
        whole_suite=_set("PAT-SINGLE-REVEAL", "PAT-LIST-MASKED"),
    ),
    Fault(
        "the listing shows the start without asterisks",
        "PAT-LIST-MASKED",
        _set("PAT-LIST-MASKED"),
        wrap_app=rewrite("/graphql", _start_without_asterisks),
    ),
    Fault(
        "members create through the API",
        "PAT-ADMIN-ONLY",
        _set("PAT-ADMIN-ONLY"),
        deployment=MembersCreate,
        whole_suite=_set("PAT-ADMIN-ONLY", "PAT-LOST-PERMISSION"),
    ),
    Fault(
        "the create is for someone else",
        "PAT-SELF-ONLY",
        _set("PAT-SELF-ONLY"),
        deployment=CreatesForSomeoneElse,
    ),
    Fault(
        "the cap is 6", "PAT-CAP", _set("PAT-CAP"), deployment=_cap(6), whole_suite=_set("PAT-CAP")
    ),
    Fault(
        "the cap is 4", "PAT-CAP", _set("PAT-CAP"), deployment=_cap(4), whole_suite=_set("PAT-CAP")
    ),
    Fault(
        "the cap counts deleted tokens",
        "PAT-CAP",
        _set("PAT-CAP"),
        deployment=CapCountsDeletedTokens,
    ),
    Fault(
        "listings show everyone's tokens",
        "PAT-LIST-OWN",
        _set("PAT-LIST-OWN"),
        deployment=ListsEveryone,
    ),
    Fault(
        "lastUsedDate is never set",
        "PAT-LAST-USED",
        _set("PAT-LAST-USED"),
        deployment=NeverMarksUse,
        whole_suite=_set("PAT-LAST-USED"),
    ),
    Fault(
        "the token in use is not listed",
        "PAT-OWNER-LOOKUP",
        _set("PAT-OWNER-LOOKUP"),
        deployment=HidesTheTokenInUse,
    ),
    Fault(
        "deletion is a no-op",
        "PAT-DELETE",
        _set("PAT-DELETE"),
        deployment=DeleteIsANoOp,
        whole_suite=_set("PAT-DELETE"),
    ),
    Fault(
        "any user can delete any token",
        "PAT-DELETE-OWN-ONLY",
        _set("PAT-DELETE-OWN-ONLY"),
        deployment=AnyoneDeletes,
        whole_suite=_set("PAT-DELETE-OWN-ONLY"),
    ),
    Fault(
        "a removed user's PAT still works",
        "PAT-REMOVED-USER",
        _set("PAT-REMOVED-USER"),
        deployment=RemovalIgnored,
        whole_suite=_set("PAT-REMOVED-USER", "PAT-REMOVAL-IMMEDIATE"),
    ),
    Fault(
        "removal is noticed late",
        "PAT-REMOVAL-IMMEDIATE",
        _set("PAT-REMOVAL-IMMEDIATE"),
        deployment=RemovalNoticedLate,
    ),
    Fault(
        "the content API ignores permission",
        "PAT-LOST-PERMISSION",
        _set("PAT-LOST-PERMISSION"),
        deployment=ContentIgnoresPermission,
    ),
    Fault(
        "a requested token needs no approval",
        "PAT-APPROVAL",
        _set("PAT-APPROVAL"),
        deployment=NoApprovalNeeded,
    ),
    Fault(
        "PATs expire after a day",
        "PAT-NO-EXPIRY",
        _set("PAT-NO-EXPIRY"),
        deployment=PatsExpireAfterADay,
    ),
)
