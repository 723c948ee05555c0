"""Every fake-testable item of docs/security.md sections A, B, C, G and H has a test.

Items are covered by a catalogue row (its ``item``), by a named test here, or by a case of
``tests/wire/test_bad_input.py``. Items 14 and 29 concern live deployments only.
"""

from __future__ import annotations

from tests.security import (
    test_a_token_endpoint,
    test_b_bearer,
    test_c_jwt,
    test_g_graphql,
    test_h_form,
)
from tests.wire import test_bad_input

SECTIONS = {
    "A": range(1, 15),
    "B": range(15, 22),
    "C": range(22, 32),
    "G": range(52, 64),
    "H": range(64, 66),
}
LIVE_ONLY = {14: "lockout after bad secrets, on staging", 29: "sanity of a live token"}
BY_TEST = {
    12: "every token row: registered error code, error_description charset (check_answer)",
    13: "test_a_token_endpoint.py::test_A13_fifty_issued_tokens_are_distinct_with_128_random_bits",
}
IN_WIRE_TABLE = {61: ("gql-10k-names", "gql-10k-directives")}
MODULES = (test_a_token_endpoint, test_b_bearer, test_c_jwt, test_g_graphql, test_h_form)


def test_row_ids_are_unique_and_name_their_item() -> None:
    rows = [row for module in MODULES for row in module.ROWS]
    ids = [row.id for row in rows]
    assert len(ids) == len(set(ids))
    for row in rows:
        assert row.id.startswith(f"{row.id[0]}{row.item}-"), row.id


def test_every_item_of_the_five_sections_is_covered() -> None:
    wire_ids = {case.id for case in test_bad_input.CASES}
    for item, ids in IN_WIRE_TABLE.items():
        assert set(ids) <= wire_ids, f"item {item}: {ids} are not in tests/wire"
    covered = {row.item for module in MODULES for row in module.ROWS}
    covered |= set(BY_TEST) | set(IN_WIRE_TABLE) | set(LIVE_ONLY)
    wanted = {item for items in SECTIONS.values() for item in items}
    assert sorted(wanted - covered) == []
