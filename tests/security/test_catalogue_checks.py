"""The catalogue's shared checks fail on the answers they exist to catch.

A check that cannot fail proves nothing: each bad answer below must raise.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from tests.security.catalogue import Kit, Row, check_answer, hubs_row, token_row

A3 = token_row("A3-wrong-secret", 3, "", error="invalid_client")
B16 = hubs_row("B16-garbage", 16, (), challenge='Bearer error="invalid_token"')
GOOD_OAUTH = {"error": "invalid_client", "error_description": "client authentication failed"}
NO_STORE = {"cache-control": "no-store", "content-type": "application/json"}
CHALLENGE = {"www-authenticate": 'Bearer error="invalid_token"'}


def _answer(status: int, body: object, headers: dict[str, str]) -> httpx.Response:
    text = body if isinstance(body, str) else json.dumps(body)
    return httpx.Response(status, headers=headers, content=text.encode())


def test_the_good_answers_pass(kit: Kit) -> None:
    check_answer(A3, _answer(400, GOOD_OAUTH, NO_STORE), kit)
    check_answer(B16, _answer(401, {"errors": [{"message": "no"}]}, CHALLENGE), kit)


BAD: list[tuple[str, Row, Callable[[Kit], httpx.Response]]] = [
    ("5xx", A3, lambda kit: _answer(500, GOOD_OAUTH, NO_STORE)),
    ("other-status", A3, lambda kit: _answer(401, GOOD_OAUTH, NO_STORE)),
    ("other-code", A3, lambda kit: _answer(400, {"error": "invalid_request"}, NO_STORE)),
    ("invalid-grant", A3, lambda kit: _answer(400, {"error": "invalid_grant"}, NO_STORE)),
    ("unregistered", A3, lambda kit: _answer(400, {"error": "bad_secret"}, NO_STORE)),
    (
        "quote-in-text",
        A3,
        lambda kit: _answer(400, {**GOOD_OAUTH, "error_description": '"x"'}, NO_STORE),
    ),
    ("cacheable", A3, lambda kit: _answer(400, GOOD_OAUTH, {"content-type": "application/json"})),
    ("not-json", A3, lambda kit: _answer(400, "error", NO_STORE)),
    (
        "traceback",
        A3,
        lambda kit: _answer(
            400,
            {**GOOD_OAUTH, "x": 'Traceback (most recent call last):\n File "a.py", line 1'},
            NO_STORE,
        ),
    ),
    (
        "echoed-secret",
        A3,
        lambda kit: _answer(400, {**GOOD_OAUTH, "x": kit.world.client_secret}, NO_STORE),
    ),
    (
        "secret-in-a-header",
        A3,
        lambda kit: _answer(400, GOOD_OAUTH, {**NO_STORE, "x-debug": kit.world.admin_token}),
    ),
    ("no-challenge", B16, lambda kit: _answer(401, {"errors": [{"message": "no"}]}, {})),
    (
        "other-challenge",
        B16,
        lambda kit: _answer(401, {"errors": [{"message": "no"}]}, {"www-authenticate": "Bearer"}),
    ),
    ("empty-errors", B16, lambda kit: _answer(401, {"errors": []}, CHALLENGE)),
]


@pytest.mark.parametrize(("row", "make"), [pytest.param(r, m, id=n) for n, r, m in BAD])
def test_a_bad_answer_fails_the_checks(
    kit: Kit, row: Row, make: Callable[[Kit], httpx.Response]
) -> None:
    with pytest.raises(AssertionError):
        check_answer(row, make(kit), kit)
