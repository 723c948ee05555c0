"""A handful of catalogue rows again, over a real socket to the loopback server.

The in-process transport skips HTTP parsing; these rows show the same answers survive
``http.server``'s own parsing of the request line, headers and body.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from patgate.transports.loopback_server import LoopbackServer
from tests.security import (
    test_a_token_endpoint,
    test_b_bearer,
    test_c_jwt,
    test_g_graphql,
    test_h_form,
)
from tests.security.catalogue import Kit, Row, check_answer

SMOKE = {
    "A1-valid-form",
    "A3-wrong-secret",
    "A6-repeated-grant-type",
    "A7-basic-and-body",
    "A11-json-body",
    "B15-no-authorization",
    "B18-two-authorization-headers",
    "B19-lower-case-bearer",
    "C22-alg-none",
    "C25-expired-beyond-leeway",
    "G56-unclosed-brace",
    "G57-depth-50",
    "H64-escaped-invalid-utf8",
    "H64-1mb-secret",
}
ROWS = [
    row
    for module in (test_a_token_endpoint, test_b_bearer, test_c_jwt, test_g_graphql, test_h_form)
    for row in module.ROWS
    if row.id in SMOKE
]


@pytest.fixture
def served_kit() -> Iterator[tuple[Kit, httpx.Client]]:
    server = LoopbackServer()
    kit = Kit(urls=server.urls)
    server.start(kit.fake.handle)
    client = httpx.Client(timeout=10)
    try:
        yield kit, client
    finally:
        client.close()
        kit.close()
        server.stop()  # re-raises anything the fake raised while serving


def test_every_smoke_row_exists() -> None:
    assert {row.id for row in ROWS} == SMOKE


@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
def test_catalogue_row_over_the_loopback_server(
    served_kit: tuple[Kit, httpx.Client], row: Row
) -> None:
    kit, client = served_kit
    check_answer(row, kit.send(row, client), kit)
