"""docs/security.md section H: odd bodies and headers at the token endpoint (item 64, 65).

``tests/wire/test_bad_input.py`` already sends an empty body, ``&&&``, ``%zz``, raw invalid
UTF-8 and a NUL in the client id, a 1 MB client id, 10k parameters, ``grant_type[]``, a
64 KB header and malformed Basic values. The rows here add the encoding corners (``+``
against ``%20``, escaped invalid UTF-8, a BOM, another charset), a 1 MB secret, the
parameter limit's edge, and more Basic shapes.
"""

from __future__ import annotations

import base64

import pytest

from tests.security.catalogue import (
    FORM,
    PROBE,
    Kit,
    Row,
    check_answer,
    token_row,
)

GRANT = "grant_type=client_credentials"
CREDENTIALS = "client_id=<<client_id>>&client_secret=<<client_secret>>"


def _basic_raw(raw: bytes) -> tuple[tuple[str, str], ...]:
    return (FORM, ("Authorization", "Basic " + base64.b64encode(raw).decode()))


ROWS = [
    # H.64 + and %20 both mean a space; a literal + must be escaped
    token_row(
        "H64-space-as-plus",
        64,
        f"client_id=<<special_id>>&client_secret=<<special_secret_plus>>&{GRANT}",
        status=200,
    ),
    token_row(
        "H64-space-as-pct20",
        64,
        f"client_id=<<special_id>>&client_secret=<<special_secret_pct>>&{GRANT}",
        status=200,
    ),
    token_row(
        "H64-unescaped-plus-is-a-space",
        64,
        f"client_id=<<special_id>>&client_secret=<<special_secret_raw_plus>>&{GRANT}",
        error="invalid_client",
    ),
    # H.64 encodings: escaped invalid UTF-8, overlong forms, surrogates, a BOM, latin-1
    token_row(
        "H64-escaped-invalid-utf8", 64, f"{CREDENTIALS}&{GRANT}&x=%ff%fe", error="invalid_request"
    ),
    token_row("H64-overlong-utf8", 64, f"{CREDENTIALS}&{GRANT}&x=%C0%AF", error="invalid_request"),
    token_row(
        "H64-utf8-surrogate", 64, f"{CREDENTIALS}&{GRANT}&x=%ED%A0%80", error="invalid_request"
    ),
    token_row(
        "H64-escaped-nul-in-secret",
        64,
        f"client_id=<<client_id>>&client_secret=<<client_secret>>%00&{GRANT}",
        error="invalid_request",
    ),
    token_row(
        "H64-utf8-bom-before-the-form",
        64,
        b"\xef\xbb\xbf" + b"grant_type=client_credentials",
        error="invalid_request",
    ),
    token_row(
        "H64-latin1-charset",
        64,
        b"grant_type=client_credentials&client_id=caf\xe9",
        headers=(("Content-Type", "application/x-www-form-urlencoded; charset=iso-8859-1"),),
        error="invalid_request",
    ),
    # H.64 shapes: a name without a value, empty names, another separator
    token_row(
        "H64-name-without-equals",
        64,
        f"client_id&client_secret=<<client_secret>>&{GRANT}",
        error="invalid_client",
    ),
    token_row("H64-empty-names", 64, f"=&=&{GRANT}", error="invalid_request"),
    token_row(
        "H64-semicolon-separators",
        64,
        "client_id=<<client_id>>;client_secret=<<client_secret>>;grant_type=client_credentials",
        error="invalid_request",
    ),
    # H.64 sizes: a 1 MB secret is not reflected; 64 parameters pass, 65 do not
    token_row(
        "H64-1mb-secret",
        64,
        f"client_id=<<client_id>>&{GRANT}&client_secret={PROBE}{'s' * 1_000_000}",
        error="invalid_client",
    ),
    token_row(
        "H64-64-parameters",
        64,
        f"{CREDENTIALS}&{GRANT}&" + "&".join(f"p{i}=1" for i in range(61)),
        status=200,
    ),
    token_row(
        "H64-65-parameters",
        64,
        f"{CREDENTIALS}&{GRANT}&" + "&".join(f"p{i}=1" for i in range(62)),
        error="invalid_request",
    ),
    # H.65 Basic values: only a colon, extra colons, not form-encoded, non-ASCII, padding
    token_row("H65-basic-colon-only", 65, GRANT, headers=_basic_raw(b":"), error="invalid_client"),
    token_row(
        "H65-basic-secret-with-a-colon",
        65,
        GRANT,
        headers=_basic_raw(b"some-client:part:other-part"),
        error="invalid_client",
    ),
    token_row(
        "H65-basic-secret-not-form-encoded",
        65,
        GRANT,
        headers=_basic_raw(b"special-client:s/e=c?r%e+t:x y&z"),
        error="invalid_request",
    ),
    token_row(
        "H65-basic-non-ascii",
        65,
        GRANT,
        headers=(FORM, ("Authorization", "Basic ümlaut")),
        error="invalid_request",
    ),
    token_row(
        "H65-basic-without-padding",
        65,
        GRANT,
        headers=(
            FORM,
            ("Authorization", "Basic " + base64.b64encode(b"ab:c").decode().rstrip("=")),
        ),
        error="invalid_request",
    ),
    token_row(
        "H65-basic-16k",
        65,
        GRANT,
        headers=(FORM, ("Authorization", "Basic " + "QUJD" * 4_200)),
        status=431,
        error="invalid_request",
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_form_catalogue(kit: Kit, row: Row) -> None:
    check_answer(row, kit.send(row), kit)
