"""docs/security.md section C: validating the client-credential JWT (RFC 8725, 7519, 9068).

Every tampered token is built from a real one. Tokens that must differ from a valid one in
exactly one respect are signed with the fake's own key (white-box), and one such token with
nothing changed is accepted, so each refusal is due to its one defect. The fake's leeway
is 0 s, inside the "at most 60 s" of item 25. Item 29 is for live deployments only.
"""

from __future__ import annotations

import pytest

from tests.security.catalogue import (
    JSON,
    Kit,
    Row,
    bearer,
    check_answer,
    graphql_body,
    graphql_row,
    hubs_row,
)

INVALID = 'Bearer error="invalid_token"'


def refused(id: str, item: int, credential: str, *, advance: float = 0) -> Row:
    return hubs_row(id, item, (bearer(credential),), challenge=INVALID, advance=advance)


ROWS = [
    # a token that differs in nothing is accepted: the refusals below are each due to one defect
    hubs_row("C23-control-resigned-unchanged", 23, (bearer("well_signed"),), status=200),
    # C.22 alg none, with the claims of a real token
    refused("C22-alg-none", 22, "alg_none"),
    graphql_row(
        "C22-alg-none-on-graphql",
        22,
        graphql_body("{ viewer { id } }"),
        headers=(JSON, bearer("alg_none")),
        status=401,
        challenge=INVALID,
        error="UNAUTHENTICATED",
    ),
    # C.23 a flipped signature byte, an edited claim under the old signature
    refused("C23-flipped-signature-byte", 23, "flipped_signature"),
    refused("C23-edited-claim", 23, "edited_claim"),
    # C.24 algorithm confusion: the verifier takes its algorithm from its allow-list only
    refused("C24-rs256-attacker-key", 24, "rs256_attacker"),
    refused("C24-hs256-other-key", 24, "hs256_other_key"),
    refused("C24-hs512-server-key", 24, "hs512"),
    # C.25 expiry and not-before
    refused("C25-expired-beyond-leeway", 25, "client_token", advance=300 + 61),
    refused("C25-exp-61s-past", 25, "expired"),
    refused("C25-nbf-120s-ahead", 25, "nbf_future"),
    refused("C25-no-exp", 25, "no_exp"),
    # C.26 issuer and audience
    refused("C26-wrong-iss", 26, "wrong_iss"),
    refused("C26-wrong-aud", 26, "wrong_aud"),
    refused("C26-no-aud", 26, "no_aud"),
    # C.27 the at+jwt type
    refused("C27-typ-jwt", 27, "typ_jwt"),
    # C.28 a jku and an unknown kid: no key is fetched (the fake has no HTTP client at all)
    refused("C28-jku-and-unknown-kid", 28, "jku_attacker"),
    # C.30 the clock the tests control: valid at t0+299, refused at t0+301
    hubs_row("C30-valid-at-299s", 30, (bearer("client_token"),), status=200, advance=299),
    refused("C30-refused-at-301s", 30, "client_token", advance=301),
    # C.31 oversized tokens: 401 or 431, never a 5xx
    graphql_row(
        "C31-16k-jwt-shaped",
        31,
        graphql_body("{ viewer { id } }"),
        headers=(JSON, bearer("jwt_16k")),
        status=401,
        challenge=INVALID,
    ),
    hubs_row("C31-1mb-token", 31, (bearer("token_1mb"),), status=431),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_jwt_catalogue(kit: Kit, row: Row) -> None:
    check_answer(row, kit.send(row), kit)
