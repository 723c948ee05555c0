"""The bad-input catalogue's row format, the credentials a row may name, and the checks.

A :class:`Row` is one case of ``docs/security.md``: an id (``A3-unknown-client``), the item it
comes from, a request, the expected status and error shape. Requests name credentials as
``<<name>>`` markers; a :class:`Kit` (one fresh fake per row) resolves them, building only
the ones a row uses. :func:`check_answer` then applies the checks every row shares: the
status and error shape, never a 5xx, a JSON object body with no traceback, and no
credential or probe value of the row echoed back.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, quote_plus

import httpx
import jwt

from patgate.fake.model import ApiClient
from patgate.fake.pat_format import PatFormat
from patgate.harness import Fake
from patgate.wire.urls import FakeUrls

Headers = tuple[tuple[str, str], ...]
Check = Callable[[httpx.Response, "Kit"], None]

FORM: tuple[str, str] = ("Content-Type", "application/x-www-form-urlencoded")
JSON: tuple[str, str] = ("Content-Type", "application/json")
PROBE = "probe-7f3a9c1e"
"""A value rows put in their garbage, so an answer that reflects the input is caught."""
SPECIAL_SECRET = "s/e=c?r%e+t:x y&z"
"""A client secret with every character RFC 6749 2.3.1's encoding step must protect."""
OAUTH_CODES = frozenset(
    {"invalid_request", "invalid_client", "invalid_grant", "unauthorized_client"}
    | {"unsupported_grant_type", "invalid_scope"}
)
DESCRIPTION = re.compile(r"[\x20-\x21\x23-\x5b\x5d-\x7e]*")
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"\n]+\", line [0-9]+")
MARKER = re.compile(r"<<([a-z0-9_]+)>>")


@dataclass(frozen=True)
class Row:
    """One catalogue case: a request and what the fake must answer."""

    id: str
    item: int
    """The item number in docs/security.md."""
    endpoint: str
    """``token``, ``hubs``, ``hub`` (one hub of the world) or ``graphql``."""
    method: str = "POST"
    headers: Headers = ()
    body: str | bytes = b""
    query: str = ""
    status: int = 400
    error: str | None = None
    """``error`` of an OAuth body, or ``errors[0].extensions.code`` of a GraphQL one."""
    challenge: str | None = None
    """The exact ``WWW-Authenticate`` value, when the contract fixes it."""
    advance: float = 0
    """Seconds the fake's clock moves between building the credentials and sending."""
    then: tuple[Check, ...] = ()
    """Checks particular to this row."""


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _segment(payload: dict[str, Any]) -> str:
    return _b64url(json.dumps(payload, separators=(",", ":")).encode())


class Kit:
    """A fresh fake, an httpx client on its in-process transport, and named credentials."""

    def __init__(self, urls: FakeUrls | None = None) -> None:
        self.fake = Fake(urls=urls)
        self.world = self.fake.default_world
        self.urls = self.fake.urls
        self.client = httpx.Client(transport=self.fake.httpx_transport(), timeout=10)
        self._values: dict[str, str] = {}

    def close(self) -> None:
        self.client.close()

    # -- named values ------------------------------------------------------------------------

    def value(self, name: str) -> str:
        """The value ``<<name>>`` stands for, built on first use."""
        if name not in self._values:
            self._values[name] = getattr(self, f"_make_{name}")()
        return self._values[name]

    def secrets(self) -> Iterator[str]:
        """Every credential of the world and every one this kit built."""
        w = self.world
        yield from (w.client_secret, w.admin_token, w.member_token)
        yield from (w.removed_token, w.unpermitted_token)
        yield from (v for k, v in self._values.items() if k not in _NOT_SECRET and len(v) >= 8)
        if "special_id" in self._values:
            yield SPECIAL_SECRET

    def fill(self, text: str) -> str:
        return MARKER.sub(lambda match: self.value(match.group(1)), text)

    def _make_client_id(self) -> str:
        return self.world.client_id

    def _make_client_secret(self) -> str:
        return self.world.client_secret

    def _make_admin_token(self) -> str:
        return self.world.admin_token

    def _make_member_token(self) -> str:
        return self.world.member_token

    def _make_removed_token(self) -> str:
        return self.world.removed_token

    def _make_unpermitted_token(self) -> str:
        return self.world.unpermitted_token

    def _make_organization_id(self) -> str:
        return self.world.organization_id

    def _make_basic(self) -> str:
        return basic(self.world.client_id, self.world.client_secret)

    def _make_basic_lower(self) -> str:
        return "basic " + self.value("basic").partition(" ")[2]

    def _make_basic_wrong_secret(self) -> str:
        return basic(self.world.client_id, "not-the-secret-" + PROBE)

    def _make_special_id(self) -> str:
        # White-box: the fake issues random secrets, and this case needs a chosen one.
        client_id = "special-client"
        self.fake.deployment.clients[client_id] = ApiClient(
            client_id,
            PatFormat.hash(SPECIAL_SECRET),
            self.world.admin_id,
            self.world.organization_id,
        )
        return client_id

    def _make_special_secret_plus(self) -> str:
        return quote_plus(SPECIAL_SECRET)

    def _make_special_secret_pct(self) -> str:
        return quote(SPECIAL_SECRET, safe="")

    def _make_special_secret_raw_plus(self) -> str:
        # A literal "+" left unescaped decodes as a space: a different, wrong secret.
        return quote_plus(SPECIAL_SECRET).replace("%2B", "+")

    def _make_special_basic(self) -> str:
        return basic(self.value("special_id"), SPECIAL_SECRET)

    # client-credential tokens, genuine and tampered (SECURITY C)

    def _make_client_token(self) -> str:
        issued = self.fake.deployment.issue_client_token(
            self.world.client_id, self.world.client_secret, "client_credentials"
        )
        return issued.access_token

    def _claims(self) -> dict[str, Any]:
        claims: dict[str, Any] = jwt.decode(
            self.value("client_token"), options={"verify_signature": False}
        )
        return claims

    def _signed(self, header: dict[str, Any] | None = None, **changes: Any) -> str:
        """A token signed with the fake's own key, so only the changed part is wrong."""
        claims = {**self._claims(), **changes}
        for name in [name for name, value in changes.items() if value is None]:
            del claims[name]
        headers = {"typ": "at+jwt", **(header or {})}
        return self.fake.deployment.client_tokens.sign_claims(claims, headers=headers)

    def _make_alg_none(self) -> str:
        return f"{_segment({'alg': 'none', 'typ': 'at+jwt'})}.{_segment(self._claims())}."

    def _make_flipped_signature(self) -> str:
        head, payload, signature = self.value("client_token").split(".")
        raw = bytearray(base64.urlsafe_b64decode(signature + "=="))
        raw[len(raw) // 2] ^= 0x01
        return f"{head}.{payload}.{_b64url(bytes(raw))}"

    def _make_edited_claim(self) -> str:
        head, _, signature = self.value("client_token").split(".")
        claims = {**self._claims(), "uid": self.world.member_id}
        return f"{head}.{_segment(claims)}.{signature}"

    def _make_hs256_other_key(self) -> str:
        return jwt.encode(self._claims(), secrets.token_bytes(32), "HS256", {"typ": "at+jwt"})

    def _make_hs512(self) -> str:
        issuer = self.fake.deployment.client_tokens
        with warnings.catch_warnings():
            # The point is the server's own 32-byte key under another algorithm; pyjwt 2.11
            # and later warn that it is short for HS512, 2.10 does not.
            short_key = getattr(jwt.warnings, "InsecureKeyLengthWarning", None)
            if short_key is not None:
                warnings.simplefilter("ignore", short_key)
            return issuer.sign_claims(self._claims(), headers={"typ": "at+jwt"}, algorithm="HS512")

    def _make_rs256_attacker(self) -> str:
        return jwt.encode(self._claims(), _attacker_key(), "RS256", {"typ": "at+jwt"})

    def _make_jku_attacker(self) -> str:
        headers = {"typ": "at+jwt", "jku": "http://127.0.0.1:9/jwks.json", "kid": "evil"}
        return jwt.encode(self._claims(), _attacker_key(), "RS256", headers)

    def _make_expired(self) -> str:
        return self._signed(exp=int(self.fake.clock.timestamp()) - 61)

    def _make_nbf_future(self) -> str:
        return self._signed(nbf=int(self.fake.clock.timestamp()) + 120)

    def _make_no_exp(self) -> str:
        return self._signed(exp=None)

    def _make_wrong_iss(self) -> str:
        return self._signed(iss="https://127.0.0.1/other-issuer")

    def _make_wrong_aud(self) -> str:
        return self._signed(aud="another-api")

    def _make_no_aud(self) -> str:
        return self._signed(aud=None)

    def _make_typ_jwt(self) -> str:
        return self._signed({"typ": "JWT"})

    def _make_well_signed(self) -> str:
        return self._signed()

    def _make_jwt_16k(self) -> str:
        return "eyJ" + "a" * 8000 + ".eyJ" + "b" * 7900 + ".c"

    def _make_token_1mb(self) -> str:
        return "a" * 1_000_000

    # personal access tokens: deleted, pending, malformed (SECURITY B.16, D.42)

    def _make_deleted_pat(self) -> str:
        deployment = self.fake.deployment
        created = self.fake.request_token_via_ui(self.world.admin_id, "doomed")
        deployment.delete_token(deployment.authenticate(created.value), created.record.id)
        return created.value

    def _make_pending_pat(self) -> str:
        return self.fake.request_token_via_ui(self.world.member_id, "waiting").value

    def _pat_parts(self) -> tuple[str, str, str]:
        prefix = self.fake.deployment.pat_format.prefix
        id_segment, _, secret = self.world.admin_token[len(prefix) :].partition(".")
        return prefix, id_segment, secret

    def _make_pat_wrong_prefix(self) -> str:
        _, id_segment, secret = self._pat_parts()
        return f"xyz_pat_{id_segment}.{secret}"

    def _make_pat_upper_prefix(self) -> str:
        prefix, id_segment, secret = self._pat_parts()
        return f"{prefix.upper()}{id_segment}.{secret}"

    def _make_pat_no_dot(self) -> str:
        prefix, id_segment, secret = self._pat_parts()
        return f"{prefix}{id_segment}{secret}"

    def _make_pat_three_segments(self) -> str:
        return self.world.admin_token + ".extra"

    def _make_pat_wrong_secret(self) -> str:
        prefix, id_segment, _ = self._pat_parts()
        return f"{prefix}{id_segment}.{_b64url(secrets.token_bytes(32))}"

    def _make_pat_random_body(self) -> str:
        prefix, _, _ = self._pat_parts()
        return f"{prefix}{_b64url(secrets.token_bytes(16))}.{_b64url(secrets.token_bytes(32))}"

    def _make_pat_prefix_only(self) -> str:
        return self._pat_parts()[0]

    def _make_pat_empty_secret(self) -> str:
        prefix, id_segment, _ = self._pat_parts()
        return f"{prefix}{id_segment}."

    # -- sending -------------------------------------------------------------------------------

    def url(self, row: Row) -> str:
        if row.endpoint == "hub":
            base = f"{self.urls.hubs_url}/{self.fake.deployment.hubs[0].id}"
        else:
            base = {
                "token": self.urls.token_url,
                "hubs": self.urls.hubs_url,
                "graphql": self.urls.graphql_url,
            }[row.endpoint]
        return f"{base}?{self.fill(row.query)}" if row.query else base

    def request(self, row: Row) -> tuple[str, str, list[tuple[str, bytes]], bytes]:
        """The row's method, URL, headers and body with every marker resolved."""
        headers = [(name, self.fill(value).encode("utf-8")) for name, value in row.headers]
        body = row.body if isinstance(row.body, bytes) else self.fill(row.body).encode("utf-8")
        return row.method, self.url(row), headers, body

    def send(self, row: Row, client: httpx.Client | None = None) -> httpx.Response:
        method, url, headers, body = self.request(row)
        if row.advance:
            self.fake.advance_clock(row.advance)
        return (client or self.client).request(method, url, headers=headers, content=body)


_NOT_SECRET = frozenset({"client_id", "organization_id", "special_id", "pat_prefix_only"})


def _attacker_key() -> Any:
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def basic(client_id: str, client_secret: str) -> str:
    """HTTP Basic client credentials, each part form-urlencoded first (RFC 6749 2.3.1)."""
    raw = f"{quote(client_id, safe='')}:{quote(client_secret, safe='')}".encode()
    return "Basic " + base64.b64encode(raw).decode("ascii")


def bearer(name: str) -> tuple[str, str]:
    """An Authorization header carrying the named credential."""
    return ("Authorization", f"Bearer <<{name}>>")


ADMIN = bearer("admin_token")
"""The admin's PAT as the bearer."""


def graphql_body(query: object, **extra: object) -> str:
    """A GraphQL request body."""
    return json.dumps({"query": query, **extra})


# -- the checks every row shares ----------------------------------------------------------------


def check_answer(row: Row, response: httpx.Response, kit: Kit) -> None:
    """Status, error shape, challenge, and the safety checks of every answer."""
    text = response.text
    assert response.status_code < 500, f"{row.id}: a {response.status_code}"
    assert response.status_code == row.status, f"{row.id}: {response.status_code} {text[:300]}"
    assert not TRACEBACK.search(text), f"{row.id}: the body holds a traceback"
    assert len(response.content) < 64 * 1024, f"{row.id}: the body echoes a large input"
    assert PROBE not in text, f"{row.id}: the body reflects the input"
    for value in kit.secrets():
        assert value not in text, f"{row.id}: the body holds a credential"
        for header_value in response.headers.values():
            assert value not in header_value, f"{row.id}: a header holds a credential"
    try:
        body = response.json()
    except ValueError:
        raise AssertionError(f"{row.id}: the body is not JSON") from None
    assert isinstance(body, dict), f"{row.id}: the body is not a JSON object"
    if row.endpoint == "token":
        _check_oauth(row, response, body)
    else:
        _check_api(row, response, body)
    for extra in row.then:
        extra(response, kit)


def _check_oauth(row: Row, response: httpx.Response, body: dict[str, Any]) -> None:
    cache = [part.strip() for part in response.headers.get("cache-control", "").split(",")]
    assert "no-store" in cache, f"{row.id}: Cache-Control is {cache}"
    if response.status_code == 200:
        return
    assert body.get("error") in OAUTH_CODES, f"{row.id}: error {body.get('error')!r}"
    assert body["error"] != "invalid_grant", f"{row.id}: invalid_grant is for grants only"
    assert DESCRIPTION.fullmatch(body.get("error_description", "")), row.id
    if row.error is not None:
        assert body["error"] == row.error, f"{row.id}: error {body['error']!r}"


def _check_api(row: Row, response: httpx.Response, body: dict[str, Any]) -> None:
    challenge = response.headers.get("www-authenticate")
    if response.status_code == 401:
        assert challenge is not None, f"{row.id}: a 401 without WWW-Authenticate"
        assert challenge.lower().startswith("bearer"), f"{row.id}: challenge {challenge!r}"
    if row.challenge is not None:
        assert challenge == row.challenge, f"{row.id}: WWW-Authenticate {challenge!r}"
    if response.status_code >= 400 or (row.endpoint == "graphql" and "data" not in body):
        errors = body.get("errors")
        assert isinstance(errors, list), f"{row.id}: no errors list"
        assert errors, f"{row.id}: an empty errors list"
        assert all(isinstance(e.get("message"), str) and e["message"] for e in errors), row.id
    if row.error is not None:
        code = body["errors"][0].get("extensions", {}).get("code")
        assert code == row.error, f"{row.id}: code {code!r}"


# -- checks particular to some rows ---------------------------------------------------------------


def issues_a_token(response: httpx.Response, kit: Kit) -> None:
    """A 200 of the token endpoint: RFC 6749 5.1's body and headers (SECURITY A.1)."""
    body = response.json()
    assert isinstance(body["access_token"], str)
    assert body["access_token"]
    assert body["token_type"].lower() == "bearer"
    assert type(body["expires_in"]) is int  # a JSON number, not "300"
    assert body["expires_in"] == 300
    assert "refresh_token" not in body
    assert response.headers["pragma"] == "no-cache"
    assert response.headers["content-type"].startswith("application/json")


def no_token(response: httpx.Response, kit: Kit) -> None:
    """No access token of any kind in the answer."""
    assert "access_token" not in response.json()
    assert not re.search(r"eyJ[A-Za-z0-9_-]+\.eyJ", response.text)


def allows_post(response: httpx.Response, kit: Kit) -> None:
    """A 405 names the methods that are allowed: POST, and OPTIONS which every resource answers."""
    assert response.headers.get("allow") == "POST, OPTIONS"


def no_data_key(response: httpx.Response, kit: Kit) -> None:
    """A request that did not run: errors, and no ``data`` key at all (SECURITY G.56)."""
    assert "data" not in response.json()


def with_locations(response: httpx.Response, kit: Kit) -> None:
    """A syntax error says where it is."""
    location = response.json()["errors"][0]["locations"][0]
    assert location["line"] >= 1
    assert location["column"] >= 1


def lists_hubs(response: httpx.Response, kit: Kit) -> None:
    """A 200 of the hubs listing holds the world's hubs."""
    assert len(response.json()["_embedded"]["hubs"]) == 3


def field_is_null(response: httpx.Response, kit: Kit) -> None:
    """A rule's refusal: HTTP 200, a coded error and a null field."""
    body = response.json()
    assert body["data"] is not None
    assert None in body["data"].values()


# -- row builders ------------------------------------------------------------------------------


def token_row(
    id: str,
    item: int,
    body: str | bytes,
    *,
    headers: Headers = (FORM,),
    method: str = "POST",
    query: str = "",
    status: int = 400,
    error: str | None = None,
    then: tuple[Check, ...] | None = None,
) -> Row:
    """A token endpoint case; by default a 200 must issue a token and anything else must not."""
    checks = then if then is not None else ((issues_a_token,) if status == 200 else (no_token,))
    return Row(id, item, "token", method, headers, body, query, status, error, then=checks)


def hubs_row(
    id: str,
    item: int,
    headers: Headers,
    *,
    query: str = "",
    status: int = 401,
    challenge: str | None = None,
    advance: float = 0,
    method: str = "GET",
) -> Row:
    """A hubs listing case; a 200 must list the world's hubs."""
    then = (lists_hubs,) if status == 200 else ()
    return Row(
        id, item, "hubs", method, headers, b"", query, status, None, challenge, advance, then
    )


def graphql_row(
    id: str,
    item: int,
    body: str | bytes,
    *,
    headers: Headers = (JSON, ADMIN),
    method: str = "POST",
    query: str = "",
    status: int = 400,
    error: str | None = None,
    challenge: str | None = None,
    advance: float = 0,
    then: tuple[Check, ...] = (),
) -> Row:
    """A GraphQL case, sent as the admin unless ``headers`` say otherwise."""
    return Row(
        id, item, "graphql", method, headers, body, query, status, error, challenge, advance, then
    )
