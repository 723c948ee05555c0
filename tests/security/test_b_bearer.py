"""docs/security.md section B: bearer tokens on the APIs (RFC 6750, RFC 9110), and malformed PATs.

The hubs listing is the REST endpoint; a few cases go to GraphQL, which shares the bearer
rules. Malformed PATs (item 42 of section D) sit here because they are bad bearers: each
gets the same 401 as an unknown token, with nothing saying which part was wrong.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.security.catalogue import (
    JSON,
    PROBE,
    Kit,
    Row,
    bearer,
    check_answer,
    graphql_body,
    graphql_row,
    hubs_row,
    no_token,
    token_row,
)

INVALID = 'Bearer error="invalid_token"'
MALFORMED = 'Bearer error="invalid_request"'
SCOPE = 'Bearer error="insufficient_scope"'
VIEWER = graphql_body("{ viewer { id } }")
MALFORMED_PATS = (
    "pat_wrong_prefix",
    "pat_upper_prefix",
    "pat_no_dot",
    "pat_three_segments",
    "pat_wrong_secret",
    "pat_random_body",
    "pat_prefix_only",
    "pat_empty_secret",
)


def _auth(value: str) -> tuple[str, str]:
    return ("Authorization", value)


ROWS = [
    # B.15 no credentials: 401 and a bare Bearer challenge, no error attribute
    hubs_row("B15-no-authorization", 15, (), challenge="Bearer"),
    hubs_row("B15-basic-scheme", 15, (_auth("<<basic>>"),), challenge="Bearer"),
    hubs_row("B15-unknown-scheme", 15, (_auth(f"Token {PROBE}"),), challenge="Bearer"),
    hubs_row("B15-empty-header", 15, (_auth(""),), challenge="Bearer"),
    # B.16 garbage, expired, deleted or pending tokens: 401 invalid_token
    hubs_row("B16-garbage", 16, (_auth(f"Bearer {PROBE}"),), challenge=INVALID),
    hubs_row(
        "B16-expired-client-token", 16, (bearer("client_token"),), advance=301, challenge=INVALID
    ),
    hubs_row("B16-deleted-pat", 16, (bearer("deleted_pat"),), challenge=INVALID),
    hubs_row("B16-pending-pat", 16, (bearer("pending_pat"),), challenge=INVALID),
    # B.17 a valid token without the permission: 403 insufficient_scope
    hubs_row(
        "B17-unpermitted-member", 17, (bearer("unpermitted_token"),), status=403, challenge=SCOPE
    ),
    hubs_row("B17-removed-user", 17, (bearer("removed_token"),), status=403, challenge=SCOPE),
    # B.18 malformed requests: 400 invalid_request
    hubs_row(
        "B18-two-authorization-headers",
        18,
        (bearer("admin_token"), bearer("admin_token")),
        status=400,
        challenge=MALFORMED,
    ),
    hubs_row(
        "B18-two-different-bearers",
        18,
        (bearer("member_token"), bearer("admin_token")),
        status=400,
        challenge=MALFORMED,
    ),
    hubs_row(
        "B18-header-and-query-token",
        18,
        (bearer("admin_token"),),
        query="access_token=<<admin_token>>",
        status=400,
        challenge=MALFORMED,
    ),
    graphql_row(
        "B18-graphql-empty-bearer",
        18,
        VIEWER,
        headers=(JSON, _auth("Bearer ")),
        error="INVALID_REQUEST",
    ),
    graphql_row(
        "B18-graphql-header-and-query-token",
        18,
        VIEWER,
        query="access_token=<<admin_token>>",
        error="INVALID_REQUEST",
    ),
    # B.19 the scheme in any case is accepted; spaces, non-ASCII or 64 KB never give a 5xx
    hubs_row("B19-lower-case-bearer", 19, (_auth("bearer <<admin_token>>"),), status=200),
    hubs_row("B19-upper-case-bearer", 19, (_auth("BEARER <<client_token>>"),), status=200),
    hubs_row(
        "B19-token-with-space", 19, (_auth("Bearer <<admin_token>> extra"),), challenge=INVALID
    ),
    hubs_row("B19-token-with-tab", 19, (_auth("Bearer\t<<admin_token>>"),), challenge="Bearer"),
    graphql_row(
        "B19-graphql-non-ascii-token", 19, VIEWER, headers=(JSON, _auth("Bearer tökén")), status=401
    ),
    graphql_row(
        "B19-graphql-64k-token",
        19,
        VIEWER,
        headers=(JSON, _auth("Bearer " + "a" * 65_536)),
        status=431,
        error="HEADERS_TOO_LARGE",
    ),
    graphql_row(
        "B19-graphql-two-bearers",
        19,
        VIEWER,
        headers=(JSON, bearer("admin_token"), bearer("member_token")),
        error="INVALID_REQUEST",
    ),
    # B.20 a token in the URL is not a credential
    hubs_row(
        "B20-query-token-only", 20, (), query="access_token=<<admin_token>>", challenge="Bearer"
    ),
    graphql_row(
        "B20-graphql-query-token-only",
        20,
        VIEWER,
        headers=(JSON,),
        query="access_token=<<admin_token>>",
        status=401,
        challenge="Bearer",
    ),
    # B.21 a bearer token is no client credential at the token endpoint
    token_row(
        "B21-pat-at-token-endpoint",
        21,
        "grant_type=client_credentials",
        headers=(("Content-Type", "application/x-www-form-urlencoded"), bearer("admin_token")),
        error="invalid_client",
        then=(no_token,),
    ),
    token_row(
        "B21-client-token-at-token-endpoint",
        21,
        "grant_type=client_credentials",
        headers=(("Content-Type", "application/x-www-form-urlencoded"), bearer("client_token")),
        error="invalid_client",
        then=(no_token,),
    ),
    # D.42 malformed PATs: the same 401 as an unknown token
    *[
        hubs_row(f"D42-{name.replace('_', '-')}", 42, (bearer(name),), challenge=INVALID)
        for name in MALFORMED_PATS
    ],
    graphql_row(
        "D42-graphql-pat-wrong-secret",
        42,
        VIEWER,
        headers=(JSON, bearer("pat_wrong_secret")),
        status=401,
        challenge=INVALID,
        error="UNAUTHENTICATED",
    ),
]

# Every refusal of the hubs listing holds on one hub's path too: the content API judges the
# bearer before it looks the path up.
ROWS += [
    replace(row, id=f"{row.id}-one-hub", endpoint="hub", then=())
    for row in ROWS
    if row.endpoint == "hubs" and row.status in (401, 403)
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_bearer_catalogue(kit: Kit, row: Row) -> None:
    check_answer(row, kit.send(row), kit)


def test_D42_malformed_pats_and_an_unknown_token_answer_alike(kit: Kit) -> None:
    def answer(value: str) -> tuple[int, bytes, str | None]:
        response = kit.client.get(kit.urls.hubs_url, headers={"Authorization": f"Bearer {value}"})
        return response.status_code, response.content, response.headers.get("www-authenticate")

    unknown = answer(kit.value("pat_random_body"))
    assert unknown[0] == 401
    assert {answer(kit.value(name)) for name in MALFORMED_PATS} == {unknown}
