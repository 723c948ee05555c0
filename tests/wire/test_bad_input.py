"""Malformed requests of every kind: each gets a clear 4xx with a JSON error body.

None raises, none gets a 5xx. The cases follow docs/security.md (sections G and H).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field

import pytest

from patgate.fake.world import DefaultWorld
from patgate.wire import MAX_BODY_BYTES
from tests.wire.conftest import FORM, GRAPHQL_URL, HUBS_URL, JSON, TOKEN_URL, Call

ADMIN = "{admin}"  # replaced by the world's admin token


@dataclass(frozen=True)
class Case:
    id: str
    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    status: int | None = None
    """The exact status, when the fake's contract fixes it (else any 4xx)."""
    code: str | None = field(default=None)
    """``error`` (token endpoint) or ``errors[0].extensions.code`` (GraphQL)."""


def _nested(depth: int) -> bytes:
    query = "{ viewer " + "{ a " * (depth - 1) + "}" * depth + " }"
    return json.dumps({"query": query}).encode()


def _gql(query: object, **extra: object) -> bytes:
    return json.dumps({"query": query, **extra}).encode()


AUTH = ("Authorization", f"Bearer {ADMIN}")
GQL = (JSON, AUTH)
VIEWER = "{ viewer { id } }"

CASES = [
    # -- the token endpoint (SECURITY H.64, H.65, A.11) ------------------------------------
    Case("token-empty-body", "POST", TOKEN_URL, (FORM,), b"", 400, "invalid_request"),
    Case("token-ampersands", "POST", TOKEN_URL, (FORM,), b"&&&", 400, "invalid_request"),
    Case("token-bad-escape", "POST", TOKEN_URL, (FORM,), b"grant_type=%zz", 400),
    Case("token-bad-utf8", "POST", TOKEN_URL, (FORM,), b"client_id=\xff\xfe", 400),
    Case("token-nul", "POST", TOKEN_URL, (FORM,), b"client_id=a%00b", 400),
    Case(
        "token-1mb-value",
        "POST",
        TOKEN_URL,
        (FORM,),
        b"grant_type=client_credentials&client_id=" + b"a" * 1_000_000,
        400,
        "invalid_client",
    ),
    Case(
        "token-10k-params",
        "POST",
        TOKEN_URL,
        (FORM,),
        "&".join(f"p{i}=1" for i in range(10_000)).encode(),
        400,
    ),
    Case("token-array-name", "POST", TOKEN_URL, (FORM,), b"grant_type[]=x", 400),
    Case("token-json", "POST", TOKEN_URL, (JSON,), b'{"grant_type":"client_credentials"}', 400),
    Case("token-garbage-type", "POST", TOKEN_URL, (("Content-Type", "\x00\xff;;"),), b"a", 400),
    Case("token-over-1mib", "POST", TOKEN_URL, (FORM,), b"a" * (MAX_BODY_BYTES + 1), 413),
    Case(
        "token-64k-header",
        "POST",
        TOKEN_URL,
        (FORM, ("Authorization", "Basic " + "A" * 65536)),
        b"",
        431,
    ),
    Case(
        "token-basic-garbage", "POST", TOKEN_URL, (FORM, ("Authorization", "Basic %%%")), b"", 400
    ),
    Case("token-basic-empty", "POST", TOKEN_URL, (FORM, ("Authorization", "Basic")), b"", 400),
    Case(
        "token-basic-no-colon",
        "POST",
        TOKEN_URL,
        (FORM, ("Authorization", "Basic " + base64.b64encode(b"id").decode())),
        b"grant_type=client_credentials",
        400,
    ),
    Case(
        "token-basic-not-utf8",
        "POST",
        TOKEN_URL,
        (FORM, ("Authorization", "Basic " + base64.b64encode(b"\xff:\xfe").decode())),
        b"grant_type=client_credentials",
        400,
    ),
    Case("token-put", "PUT", TOKEN_URL, (FORM,), b"", 405),
    Case("token-unknown-method", "BREW", TOKEN_URL, (), b"", 405),
    # -- the content API (SECURITY B.18, B.19, C.31) ----------------------------------------
    Case(
        "hubs-control-chars",
        "GET",
        HUBS_URL,
        (("Authorization", "Bearer \x00\x01\x7f"),),
        status=401,
    ),
    Case("hubs-non-ascii", "GET", HUBS_URL, (("Authorization", "Bearer tökén"),), status=401),
    Case(
        "hubs-16k-token",
        "GET",
        HUBS_URL,
        (("Authorization", "Bearer " + "a" * 16_000),),
        status=401,
    ),
    Case(
        "hubs-64k-token",
        "GET",
        HUBS_URL,
        (("Authorization", "Bearer " + "a" * 65_536),),
        status=431,
    ),
    Case(
        "hubs-huge-jwt",
        "GET",
        HUBS_URL,
        (("Authorization", "Bearer eyJ" + "a." * 2 + "b" * 9000),),
        status=401,
    ),
    Case(
        "hubs-many-headers",
        "GET",
        HUBS_URL,
        tuple((f"x-h{i}", "v") for i in range(200)),
        status=431,
    ),
    Case("hubs-huge-page", "GET", f"{HUBS_URL}?page={'9' * 5000}", (AUTH,), status=400),
    Case("hubs-query-garbage", "GET", f"{HUBS_URL}?%%%=&size=%ff", (AUTH,), status=400),
    Case("hubs-empty-bearer", "GET", HUBS_URL, (("Authorization", "Bearer "),), status=400),
    Case("hubs-empty-header", "GET", HUBS_URL, (("Authorization", ""),), status=401),
    Case("hubs-trailing-slash", "GET", HUBS_URL + "/", (AUTH,), status=404),
    Case("hubs-unknown-path", "GET", HUBS_URL.replace("/hubs", "/nothing"), (AUTH,), status=404),
    Case("hubs-root", "GET", HUBS_URL.replace("/v2/content/hubs", ""), status=404),
    # -- GraphQL (SECURITY G.52 - G.61) -------------------------------------------------------
    Case("gql-not-json", "POST", GRAPHQL_URL, GQL, b"{query", 400, "BAD_REQUEST"),
    Case("gql-empty", "POST", GRAPHQL_URL, GQL, b"", 400, "BAD_REQUEST"),
    Case("gql-bad-utf8", "POST", GRAPHQL_URL, GQL, b'{"query": "\xff"}', 400),
    Case("gql-nan", "POST", GRAPHQL_URL, GQL, b'{"query": "{ viewer { id } }", "x": NaN}', 400),
    Case("gql-huge-int", "POST", GRAPHQL_URL, GQL, b'{"query": 1' + b"0" * 5000 + b"}", 400),
    Case("gql-deep-json", "POST", GRAPHQL_URL, GQL, b"[" * 100_000 + b"]" * 100_000, 400),
    Case(
        "gql-deep-variables",
        "POST",
        GRAPHQL_URL,
        GQL,
        b'{"query":"{viewer{id}}","variables":' + b'{"a":' * 50_000 + b"1" + b"}" * 50_001,
        400,
    ),
    Case("gql-batch", "POST", GRAPHQL_URL, GQL, json.dumps([{"query": VIEWER}] * 10).encode(), 400),
    Case("gql-string", "POST", GRAPHQL_URL, GQL, b'"{ viewer { id } }"', 400),
    Case("gql-null", "POST", GRAPHQL_URL, GQL, b"null", 400),
    Case("gql-number", "POST", GRAPHQL_URL, GQL, b"42", 400),
    Case("gql-no-query", "POST", GRAPHQL_URL, GQL, b"{}", 400),
    Case("gql-query-object", "POST", GRAPHQL_URL, GQL, _gql({"a": 1}), 400),
    Case("gql-query-number", "POST", GRAPHQL_URL, GQL, _gql(1), 400),
    Case("gql-query-bool", "POST", GRAPHQL_URL, GQL, _gql(True), 400),
    Case("gql-query-array", "POST", GRAPHQL_URL, GQL, _gql([VIEWER]), 400),
    Case("gql-variables-string", "POST", GRAPHQL_URL, GQL, _gql(VIEWER, variables="{}"), 400),
    Case("gql-variables-number", "POST", GRAPHQL_URL, GQL, _gql(VIEWER, variables=1), 400),
    Case("gql-variables-array", "POST", GRAPHQL_URL, GQL, _gql(VIEWER, variables=[]), 400),
    Case("gql-operation-number", "POST", GRAPHQL_URL, GQL, _gql(VIEWER, operationName=1), 400),
    Case("gql-no-content-type", "POST", GRAPHQL_URL, (AUTH,), _gql(VIEWER), 415),
    Case(
        "gql-text-plain",
        "POST",
        GRAPHQL_URL,
        (("Content-Type", "text/plain"), AUTH),
        _gql(VIEWER),
        415,
    ),
    Case(
        "gql-graphql-type",
        "POST",
        GRAPHQL_URL,
        (("Content-Type", "application/graphql"), AUTH),
        VIEWER.encode(),
        415,
    ),
    Case("gql-form", "POST", GRAPHQL_URL, (FORM, AUTH), b"query=x", 415),
    Case("gql-get", "GET", GRAPHQL_URL, (AUTH,), status=405),
    Case(
        "gql-syntax", "POST", GRAPHQL_URL, GQL, _gql("{ viewer { id "), 400, "GRAPHQL_PARSE_FAILED"
    ),
    Case("gql-depth-20", "POST", GRAPHQL_URL, GQL, _nested(20), 400, "QUERY_TOO_DEEP"),
    Case("gql-depth-246", "POST", GRAPHQL_URL, GQL, _nested(246), 400, "QUERY_TOO_DEEP"),
    Case("gql-depth-10000", "POST", GRAPHQL_URL, GQL, _nested(10_000), 400, "QUERY_TOO_DEEP"),
    Case("gql-1mb-query", "POST", GRAPHQL_URL, GQL, _gql("{" * 1_100_000), 413),
    Case(
        "gql-long-query",
        "POST",
        GRAPHQL_URL,
        GQL,
        _gql("{ viewer { id } }" + " " * 70_000),
        400,
        "QUERY_TOO_LARGE",
    ),
    Case(
        "gql-50k-aliases",
        "POST",
        GRAPHQL_URL,
        GQL,
        _gql("{" + " ".join(f"a{i}: viewer {{ id }}" for i in range(50_000)) + "}"),
        413,
    ),
    Case(
        "gql-20k-aliases",
        "POST",
        GRAPHQL_URL,
        GQL,
        _gql("{" + " ".join(f"a{i}: viewer {{ id }}" for i in range(20_000)) + "}"),
        400,
        "QUERY_TOO_LARGE",
    ),
    Case(
        "gql-10k-names", "POST", GRAPHQL_URL, GQL, _gql("{ viewer { " + "n " * 10_000 + "} }"), 400
    ),
    Case(
        "gql-10k-directives",
        "POST",
        GRAPHQL_URL,
        GQL,
        _gql("{ viewer @include(if: true)" * 2_000 + " { id } }"),
        400,
    ),
    Case(
        "gql-fragment-cycle",
        "POST",
        GRAPHQL_URL,
        GQL,
        _gql("{ viewer { ...A } } fragment A on Viewer { ...B } fragment B on Viewer { ...A }"),
        400,
        "GRAPHQL_VALIDATION_FAILED",
    ),
    Case("gql-two-authorizations", "POST", GRAPHQL_URL, (JSON, AUTH, AUTH), _gql(VIEWER), 400),
    Case(
        "gql-surrogates",
        "POST",
        GRAPHQL_URL,
        GQL,
        b'{"query": "{ viewer { name(x: \\"\\ud800\\") } }"}',
        400,
        "GRAPHQL_PARSE_FAILED",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_gets_a_clear_4xx_with_a_json_body(
    call: Call, world: DefaultWorld, case: Case
) -> None:
    headers = [(name, value.replace(ADMIN, world.admin_token)) for name, value in case.headers]
    response = call(case.method, case.url, headers, case.body)
    assert 400 <= response.status < 500, response.body[:200]
    if case.status is not None:
        assert response.status == case.status, response.body[:300]
    body = response.json()
    assert isinstance(body, dict)
    if case.url == TOKEN_URL:
        assert body["error"] in {"invalid_request", "invalid_client", "unsupported_grant_type"}
        assert case.code is None or body["error"] == case.code
        assert world.client_secret not in response.body.decode()
    else:
        assert body["errors"][0]["message"]
        if case.code is not None:
            assert body["errors"][0]["extensions"]["code"] == case.code
    assert len(response.body) < 64 * 1024, "an error body never echoes a large input"
