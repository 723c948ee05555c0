"""Client-credential access tokens: signed JWTs that expire after ``expires_in`` seconds."""

from __future__ import annotations

import math
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from patgate.basics.reasons import Reason
from patgate.errors import Unauthenticated
from patgate.fake.clock import Clock
from patgate.fake.refusal_reasons import expired_client_token

__all__ = ["ClientTokenClaims", "ClientTokenIssuer", "IssuedClientToken", "VerifiedClientToken"]

_ALGORITHM = "HS256"
_ISSUER = "patgate-fake-auth"
_AUDIENCE = "patgate-fake-api"


@dataclass(frozen=True)
class IssuedClientToken:
    """What the token endpoint answers with; the repr never shows the token."""

    access_token: str
    expires_in: int
    session_expires_in: int

    def __repr__(self) -> str:
        return f"IssuedClientToken(expires_in={self.expires_in}, access_token=<hidden>)"


@dataclass(frozen=True)
class ClientTokenClaims:
    """Who a verified client-credential token speaks for."""

    client_id: str
    user_id: str
    organization_id: str


@dataclass(frozen=True)
class VerifiedClientToken:
    """A client token whose signature checked out: its claims and its validity window."""

    claims: ClientTokenClaims
    expires_at: int
    not_before: int
    issued_at: int | None = None
    """``iat``, for a refusal's reason (``None``: the token did not say)."""


_VERIFIED_CACHE_SIZE = 4096


class ClientTokenIssuer:
    """Signs and verifies client-credential tokens with a key made for this fake alone.

    Expiry is judged against the fake's :class:`Clock`, not the machine's, so tests advance
    time instead of sleeping. The verifier accepts one algorithm only and never takes it
    from the token header.
    """

    def __init__(
        self,
        clock: Clock,
        *,
        expires_in: int = 300,
        session_expires_in: int = 86400,
        leeway: int = 0,
    ) -> None:
        self._clock = clock
        self._key = secrets.token_bytes(32)
        self.expires_in = expires_in
        self.session_expires_in = session_expires_in
        self.leeway = leeway
        # Only tokens whose signature checked out are kept; a tampered one never is.
        self._verified: dict[str, VerifiedClientToken] = {}

    def issue(self, client_id: str, user_id: str, organization_id: str) -> IssuedClientToken:
        """A signed token for ``client_id``, acting as ``user_id`` in ``organization_id``."""
        now = self._clock.timestamp()
        # JWT times are whole seconds: iat and nbf round down (valid from the issue on), exp
        # rounds up, so the token lives at least expires_in seconds from the issue.
        issued_at = math.floor(now)
        expires_at = math.ceil(now) + self.expires_in
        claims = {
            "iss": _ISSUER,
            "aud": _AUDIENCE,
            "sub": client_id,
            "uid": user_id,
            "org": organization_id,
            "iat": issued_at,
            "nbf": issued_at,
            "exp": expires_at,
            "jti": str(uuid.uuid4()),
        }
        import jwt  # lazily: PyJWT (with cryptography) is a test's largest one-time import

        token = jwt.encode(claims, self._key, algorithm=_ALGORITHM, headers={"typ": "at+jwt"})
        return IssuedClientToken(token, self.expires_in, self.session_expires_in)

    def sign_claims(
        self,
        claims: dict[str, Any],
        *,
        headers: dict[str, Any] | None = None,
        algorithm: str = _ALGORITHM,
    ) -> str:
        """``claims`` signed with this issuer's key, as given (no claim added or checked).

        For tests that forge a token differing from a real one in one part only (a claim, a
        header, the algorithm), so that only that part can be why it is refused.
        """
        import jwt

        return jwt.encode(claims, self._key, algorithm=algorithm, headers=headers)

    @staticmethod
    def looks_like_jwt(token: str) -> bool:
        """Whether ``token`` has a JWT's shape (three segments, a JSON header)."""
        return token.count(".") == 2 and token.startswith("eyJ")

    def verify(self, token: str) -> ClientTokenClaims:
        """The claims of a valid token; :class:`Unauthenticated` for anything else.

        The signature is checked once per token value (PyJWT spends ~90 us on it); the
        verified claims are kept, and time is judged against the clock on every use.
        """
        verified = self._verified.get(token)
        if verified is None:
            verified = self.verify_signature(token)
            if len(self._verified) >= _VERIFIED_CACHE_SIZE:
                self._verified.clear()
            self._verified[token] = verified
        now = self._clock.timestamp()
        if now >= verified.expires_at + self.leeway:
            raise Unauthenticated(
                "the access token has expired",
                rule_id="CLIENT-TOKEN-EXPIRY",
                reason=expired_client_token(
                    verified.issued_at, verified.expires_at, self._clock.now(), self.expires_in
                ),
            )
        if now + self.leeway < verified.not_before:
            raise Unauthenticated(
                "the access token is not valid yet",
                rule_id="AUTH-INVALID-TOKEN",
                reason=Reason(
                    "client-token-not-yet-valid",
                    f"the client token is valid from {verified.not_before:.0f} (nbf), the "
                    f"fake's clock is at {now:.0f}",
                ),
            )
        return verified.claims

    def claims_of(self, token: str) -> ClientTokenClaims | None:
        """Who ``token`` speaks for if it was verified before (expired or not); else ``None``.

        Raises (and so records) nothing: for the request log and fault rules.
        """
        verified = self._verified.get(token)
        return verified.claims if verified is not None else None

    def verify_signature(self, token: str) -> VerifiedClientToken:
        """The claims of ``token`` if this issuer signed it; :class:`Unauthenticated` if not.

        Expiry is not judged here (see :meth:`verify`). The fault seam's step for signatures.
        """
        import jwt

        def invalid(why: str) -> Unauthenticated:  # made only when refusing: it notes it
            return Unauthenticated(
                "the access token is not valid",
                rule_id="AUTH-INVALID-TOKEN",
                reason=Reason(
                    "bearer-not-issued",
                    f"the bearer token was not issued by this fake: a JWT {why[:160]}",
                ),
            )

        try:
            decoded = jwt.decode_complete(
                token,
                self._key,
                algorithms=[_ALGORITHM],
                audience=_AUDIENCE,
                issuer=_ISSUER,
                options={
                    "require": ["exp", "iat", "sub", "aud", "iss"],
                    # Time is checked in verify() against the fake's clock, not the machine's.
                    "verify_exp": False,
                    "verify_iat": False,
                    "verify_nbf": False,
                },
            )
        except jwt.PyJWTError as exc:
            raise invalid(f"that does not verify ({exc})") from exc
        header, claims = decoded["header"], decoded["payload"]
        user_id, org_id = claims.get("uid"), claims.get("org")
        if (
            header.get("typ") != "at+jwt"
            or not isinstance(user_id, str)
            or not isinstance(org_id, str)
            or not isinstance(claims["exp"], int)
        ):
            raise invalid("without this fake's typ, uid, org or whole-second exp")
        issued = claims["iat"]
        return VerifiedClientToken(
            ClientTokenClaims(str(claims["sub"]), user_id, org_id),
            expires_at=int(claims["exp"]),
            not_before=int(claims.get("nbf", claims["iat"])),
            issued_at=int(issued) if isinstance(issued, int | float) else None,
        )
