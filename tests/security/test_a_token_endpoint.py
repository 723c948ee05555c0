"""docs/security.md section A: the token endpoint (RFC 6749 2.3, 3.2, 4.4, 5).

Item 14 (lockout after repeated bad secrets) is for staging deployments only; malformed
bodies of every kind are in section H and in ``tests/wire/test_bad_input.py``.
"""

from __future__ import annotations

import jwt
import pytest

from tests.security.catalogue import (
    FORM,
    JSON,
    PROBE,
    Kit,
    Row,
    allows_post,
    check_answer,
    no_token,
)
from tests.security.catalogue import token_row as token

CREDENTIALS = "client_id=<<client_id>>&client_secret=<<client_secret>>"
GRANT = "grant_type=client_credentials"
GOOD = f"{CREDENTIALS}&{GRANT}"
BASIC = ("Authorization", "<<basic>>")
MULTIPART = (
    "--b0undary\r\n"
    'Content-Disposition: form-data; name="client_id"\r\n\r\n<<client_id>>\r\n'
    "--b0undary\r\n"
    'Content-Disposition: form-data; name="client_secret"\r\n\r\n<<client_secret>>\r\n'
    "--b0undary\r\n"
    'Content-Disposition: form-data; name="grant_type"\r\n\r\nclient_credentials\r\n'
    "--b0undary--\r\n"
)


ROWS = [
    # A.1 a valid form POST: 200, a Bearer token, 300 s, no refresh token, not cached
    token("A1-valid-form", 1, GOOD, status=200),
    token("A1-valid-form-reordered", 1, f"{GRANT}&{CREDENTIALS}", status=200),
    token(
        "A1-percent-encoded-names",
        1,
        "client%5Fid=<<client_id>>&client%5Fsecret=<<client_secret>>&grant%5Ftype=client_credentials",
        status=200,
    ),
    # A.2 HTTP Basic, parts form-urlencoded before base64, a secret with / = ? % + : and space
    token("A2-basic", 2, GRANT, headers=(FORM, BASIC), status=200),
    token(
        "A2-basic-lower-case-scheme",
        2,
        GRANT,
        headers=(FORM, ("Authorization", "<<basic_lower>>")),
        status=200,
    ),
    token(
        "A2-basic-special-secret",
        2,
        GRANT,
        headers=(FORM, ("Authorization", "<<special_basic>>")),
        status=200,
    ),
    # A.3 a wrong secret or an unknown id: 400 invalid_client (identical: see below)
    token(
        "A3-wrong-secret",
        3,
        f"client_id=<<client_id>>&client_secret={PROBE}&{GRANT}",
        error="invalid_client",
    ),
    token(
        "A3-unknown-client",
        3,
        f"client_id={PROBE}&client_secret=<<client_secret>>&{GRANT}",
        error="invalid_client",
    ),
    token(
        "A3-secret-of-another-case",
        3,
        f"client_id=<<client_id>>&client_secret=<<client_secret>>x&{GRANT}",
        error="invalid_client",
    ),
    # A.4 a wrong secret through Basic: 400 here (the contract), invalid_client, never invalid_grant
    token(
        "A4-basic-wrong-secret",
        4,
        GRANT,
        headers=(FORM, ("Authorization", "<<basic_wrong_secret>>")),
        error="invalid_client",
    ),
    # A.5 grant_type missing, or another grant
    token("A5-missing-grant-type", 5, CREDENTIALS, error="invalid_request"),
    token("A5-empty-grant-type", 5, f"{CREDENTIALS}&grant_type=", error="invalid_request"),
    token(
        "A5-grant-password", 5, f"{CREDENTIALS}&grant_type=password", error="unsupported_grant_type"
    ),
    token(
        "A5-grant-authorization-code",
        5,
        f"{CREDENTIALS}&grant_type=authorization_code&code=abc",
        error="unsupported_grant_type",
    ),
    token(
        "A5-grant-refresh-token",
        5,
        f"{CREDENTIALS}&grant_type=refresh_token",
        error="unsupported_grant_type",
    ),
    token("A5-grant-unknown", 5, f"{CREDENTIALS}&grant_type=foo", error="unsupported_grant_type"),
    token(
        "A5-grant-other-case",
        5,
        f"{CREDENTIALS}&grant_type=Client_Credentials",
        error="unsupported_grant_type",
    ),
    # A.6 a parameter given twice
    token("A6-repeated-grant-type", 6, f"{GOOD}&{GRANT}", error="invalid_request"),
    token("A6-repeated-client-id", 6, f"{GOOD}&client_id=<<client_id>>", error="invalid_request"),
    token(
        "A6-repeated-secret-second-wrong", 6, f"{GOOD}&client_secret=wrong", error="invalid_request"
    ),
    token("A6-repeated-once-empty", 6, f"client_secret=&{GOOD}", error="invalid_request"),
    # A.7 credentials both in the Basic header and in the body
    token("A7-basic-and-body", 7, GOOD, headers=(FORM, BASIC), error="invalid_request"),
    token(
        "A7-basic-and-body-secret",
        7,
        f"client_secret=<<client_secret>>&{GRANT}",
        headers=(FORM, BASIC),
        error="invalid_request",
    ),
    token(
        "A7-basic-and-body-id",
        7,
        f"client_id=<<client_id>>&{GRANT}",
        headers=(FORM, BASIC),
        error="invalid_request",
    ),
    # A.8 the secret in the query string never authenticates
    token(
        "A8-secret-in-query",
        8,
        f"client_id=<<client_id>>&{GRANT}",
        query="client_secret=<<client_secret>>",
        error="invalid_request",
    ),
    token(
        "A8-secret-in-query-and-body",
        8,
        GOOD,
        query="client_secret=<<client_secret>>",
        error="invalid_request",
    ),
    token(
        "A8-encoded-name-in-query",
        8,
        f"client_id=<<client_id>>&{GRANT}",
        query="client%5Fsecret=<<client_secret>>",
        error="invalid_request",
    ),
    # A.9 only POST
    token("A9-get", 9, "", method="GET", status=405, then=(allows_post, no_token)),
    token(
        "A9-get-with-credentials",
        9,
        "",
        method="GET",
        query=GOOD,
        status=405,
        then=(allows_post, no_token),
    ),
    token("A9-put", 9, GOOD, method="PUT", status=405, then=(allows_post, no_token)),
    token("A9-delete", 9, "", method="DELETE", status=405, then=(allows_post, no_token)),
    # A.10 an empty value is omitted; an unknown parameter is ignored
    token(
        "A10-empty-secret",
        10,
        f"client_id=<<client_id>>&client_secret=&{GRANT}",
        error="invalid_client",
    ),
    token(
        "A10-empty-id",
        10,
        f"client_id=&client_secret=<<client_secret>>&{GRANT}",
        error="invalid_client",
    ),
    token("A10-unknown-parameters", 10, f"{GOOD}&scope=anything&foo=bar", status=200),
    # A.11 JSON, multipart or no content type: 400, never a token
    token(
        "A11-json-body",
        11,
        '{"client_id":"<<client_id>>","client_secret":"<<client_secret>>","grant_type":"client_credentials"}',
        headers=(JSON,),
        error="invalid_request",
    ),
    token(
        "A11-multipart-body",
        11,
        MULTIPART,
        headers=(("Content-Type", "multipart/form-data; boundary=b0undary"),),
        error="invalid_request",
    ),
    token("A11-no-content-type", 11, GOOD, headers=(), error="invalid_request"),
    token(
        "A11-text-plain",
        11,
        GOOD,
        headers=(("Content-Type", "text/plain"),),
        error="invalid_request",
    ),
    token(
        "A11-form-type-with-junk-parameters",
        11,
        GOOD,
        headers=(("Content-Type", "application/x-www-form-urlencoded;;; x"),),
        status=200,
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_token_endpoint_catalogue(kit: Kit, row: Row) -> None:
    check_answer(row, kit.send(row), kit)


def test_A3_an_unknown_id_and_a_wrong_secret_answer_byte_for_byte_alike(kit: Kit) -> None:
    answers = [
        kit.client.post(
            kit.urls.token_url,
            headers=[FORM],
            content=f"client_id={client_id}&client_secret={secret}&{GRANT}",
        )
        for client_id, secret in [
            (kit.world.client_id, "wrong-secret"),
            ("unknown-client", kit.world.client_secret),
            ("unknown-client", "wrong-secret"),
        ]
    ]
    assert {(a.status_code, a.content) for a in answers} == {
        (answers[0].status_code, answers[0].content)
    }
    assert {tuple(sorted(a.headers.items())) for a in answers} == {
        tuple(sorted(answers[0].headers.items()))
    }


def test_A13_fifty_issued_tokens_are_distinct_with_128_random_bits(kit: Kit) -> None:
    tokens = [
        kit.client.post(kit.urls.token_url, headers=[FORM], content=kit.fill(GOOD)).json()[
            "access_token"
        ]
        for _ in range(50)
    ]
    assert len(set(tokens)) == 50
    # The signature segment is an HMAC-SHA256: 256 bits no one can predict without the key.
    signatures = {token.rsplit(".", 1)[1] for token in tokens}
    assert len(signatures) == 50
    assert all(len(signature) >= 43 for signature in signatures)
    ids = {jwt.decode(token, options={"verify_signature": False})["jti"] for token in tokens}
    assert len(ids) == 50
