"""Hostile token names: refused with an error naming the rule, and never a 500 on the page.

A name that hides or reorders text (bidirectional overrides, invisible characters, line
separators) would let one token pass for another on the page and in logs; a lone surrogate
cannot be encoded at all. An old state file may still hold such names: the page shows them
as code points.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from patgate import Fake
from patgate.fake.state import export_state, load_state
from tests.ui.test_site import Browser

CREATE = """
mutation($input: CreatePersonalAccessTokenInput!) {
  createPersonalAccessToken(input: $input) { id name }
}
"""

REFUSED = [
    ("\ud800", "lone surrogates", "U+D800"),
    ("a\udfffb", "lone surrogates", "U+DFFF"),
    ("a\x00b", "control characters", "U+0000"),
    ("a\x1bb", "control characters", "U+001B"),
    ("a\x85b", "control characters", "U+0085"),
    ("a\u2028b", "line separators", "U+2028"),
    ("a\u2029b", "paragraph separators", "U+2029"),
    ("invoice\u202egpj.exe", "bidirectional controls", "U+202E"),
    ("a\u2066b\u2069", "bidirectional controls", "U+2066"),
    ("a\u200fb", "bidirectional controls", "U+200F"),
    ("ci\u200b", "invisible formatting characters", "U+200B"),
    ("\ufeffci", "invisible formatting characters", "U+FEFF"),
    ("a\u00adb", "invisible formatting characters", "U+00AD"),
    ("tag\U000e0041", "invisible formatting characters", "U+E0041"),
]


@pytest.fixture
def fake() -> Iterator[Fake]:
    with Fake() as started:
        yield started


def _create(fake: Fake, name: str) -> httpx.Response:
    # The JSON is written by hand: a lone surrogate must reach the server as an escape.
    import json

    body = json.dumps(
        {"query": CREATE, "variables": {"input": {"name": name, "organizationId": _org(fake)}}}
    )
    return httpx.post(
        fake.urls.graphql_url,
        content=body.encode("ascii"),
        headers={
            "Authorization": f"Bearer {fake.default_world.admin_token}",
            "Content-Type": "application/json",
        },
    )


def _org(fake: Fake) -> str:
    return fake.default_world.organization_id


@pytest.mark.parametrize(("name", "rule", "code_point"), REFUSED)
def test_a_hostile_name_is_refused_with_an_error_naming_the_rule(
    fake: Fake, name: str, rule: str, code_point: str
) -> None:
    held = len(list(fake.deployment.tokens_of(fake.default_world.admin_id)))
    answer = _create(fake, name)
    assert answer.status_code == 200
    error = answer.json()["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert rule in error["message"]
    assert code_point in error["message"]
    assert len(list(fake.deployment.tokens_of(fake.default_world.admin_id))) == held


@pytest.mark.parametrize(
    "name", ["ci", "déploiement", "部署", "нотатка", "emoji 🚀", "family 👨", "עברית", "زمن"]
)
def test_ordinary_names_of_any_script_are_accepted(fake: Fake, name: str) -> None:
    answer = _create(fake, name)
    created = answer.json()["data"]["createPersonalAccessToken"]
    assert created["name"] == name


def test_the_page_renders_names_stored_before_the_rule_without_a_500(fake: Fake) -> None:
    """A state file written by an older patgate may hold any name: the owner's page and the
    admin's approvals page show each refused character as its code point."""
    world = fake.default_world
    fake.request_token_via_ui(world.member_id, "pending")
    fake.issue_token(world.admin_id)
    state = export_state(fake.deployment)
    hostile = "x\ud800y\u202ez\u200b\x85"
    for token in state["tokens"]:
        token["name"] = hostile
    load_state(fake.deployment, state)
    browser = Browser(fake)
    try:
        browser.act_as(world.admin_id)
        for path in ("/tokens", "/approvals", "/", "/inspector"):
            page = browser.get(path)
            assert page.status_code == 200, path
            assert "\u202e" not in page.text
            assert "\u200b" not in page.text
        listing = browser.get("/tokens").text
        assert "x&lt;U+D800&gt;y&lt;U+202E&gt;z&lt;U+200B&gt;&lt;U+0085&gt;" in listing
    finally:
        browser.client.close()
