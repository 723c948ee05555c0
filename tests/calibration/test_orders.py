"""The orders a probe tells apart: the tokens it names out of creation order, and the hubs
a target lists (by creation, by name, by name descending, or not told)."""

from __future__ import annotations

import pytest

import patgate
from patgate.calibration.content_probes import hub_order
from patgate.calibration.probes import probe_target
from patgate.runner.connection.fake import FakeTarget
from patgate.runner.context import RunOptions
from patgate.runner.session import open_session


@pytest.mark.parametrize("order", ["created_ascending", "created_descending", "name_ascending"])
def test_the_token_listing_order_is_told_apart_from_name_order(order: str) -> None:
    # Names in creation order would make a listing by name look like created_ascending.
    profile = {"profile_version": 1, "listing_order": order}
    with (
        patgate.Fake(profile=profile) as fake,
        open_session(FakeTarget(fake), RunOptions(allow_writes=True)) as session,
    ):
        result = probe_target(session, allow_writes=True)
    assert result.findings["listing_order"].value == order


def _hubs(*rows: tuple[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "createdDate": f"2026-01-0{day}T00:00:00.000Z"} for name, day in rows]


def test_hub_order_by_name_and_by_creation() -> None:
    assert hub_order(_hubs(("b", "1"), ("c", "2"), ("a", "3"))) == ("created_ascending", "")
    assert hub_order(_hubs(("a", "3"), ("b", "1"), ("c", "2"))) == ("name_ascending", "")
    assert hub_order(_hubs(("c", "2"), ("b", "1"), ("a", "3"))) == ("name_descending", "")
    assert hub_order(_hubs(("a", "3"), ("c", "2"), ("b", "1"))) == ("created_descending", "")


def test_hub_order_not_observable_where_the_hubs_cannot_tell() -> None:
    order, why = hub_order(_hubs(("a", "1")))
    assert order is None
    assert "1 hub(s)" in why
    # Names in creation order: a listing by name and one by creation look the same.
    order, why = hub_order(_hubs(("a", "1"), ("b", "2"), ("c", "3")))
    assert order is None
    assert "creation order" in why
