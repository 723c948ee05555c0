"""The inspector as a person debugging uses it: who sent what, what answered, the detail of
one request, filters, fault rules added and cleared in the page, a reset, and removals that
ask first and never take an organization's last admin."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import httpx

from patgate import Fake
from patgate.guards.redaction import REDACTED
from tests.ui.conftest import Browser

VIEWER = "query Viewer { viewer { id } }"


def _graphql(fake: Fake, token: str, query: str = VIEWER) -> int:
    response = httpx.post(
        fake.urls.graphql_url,
        json={"query": query, "operationName": "Viewer"},
        headers={"Authorization": f"Bearer {token}"},
    )
    return response.status_code


def _hubs(fake: Fake, token: str) -> int:
    return httpx.get(fake.urls.hubs_url, headers={"Authorization": f"Bearer {token}"}).status_code


def _rows(page: str) -> list[str]:
    table = page[page.index('id="requests"') :]
    table = table[table.index("<tbody>") : table.index("</tbody>")] if "<tbody>" in table else ""
    return re.findall(r"<tr>(.*?)</tr>", table)


def test_each_request_shows_time_operation_whose_credential_status_and_fault(
    fake: Fake, browser: Browser
) -> None:
    admin = fake.deployment.users[fake.default_world.admin_id].name
    fake.deployment.faults.add("hubs", status=503, count=1)
    _graphql(fake, fake.world["admin_token"])
    _hubs(fake, fake.world["member_token"])
    _hubs(fake, "not-a-token")
    rows = _rows(browser.get("/inspector").text)
    assert len(rows) == 3
    unknown, faulted, viewer = rows
    assert re.search(r'<time datetime="[^"]+Z" title="[^"]+">\d\d:\d\d:\d\d</time>', viewer)
    assert "Viewer" in viewer
    assert f'{admin}</span> <span class="muted">(personal access token)' in viewer
    assert ">200<" in viewer
    assert "fault-1" in faulted
    assert ">503<" in faulted
    assert "Bearer" in unknown
    assert "(not valid)" in unknown
    for token in ("admin_token", "member_token"):
        assert fake.world[token] not in "".join(rows)


def test_the_detail_view_shows_redacted_headers(fake: Fake, browser: Browser) -> None:
    _graphql(fake, fake.world["admin_token"])
    number = fake.request_log[-1].number
    page = browser.get(f"/inspector/request?number={number}").text
    assert f"Request #{number}: POST" in page
    assert "authorization" in page
    assert f"Bearer {REDACTED}" in page
    assert fake.world["admin_token"] not in page
    missing = browser.get("/inspector/request?number=999999")
    assert missing.status_code == 404
    assert "is not in the log" in missing.text


def test_filters_keep_one_user_one_status_one_operation(fake: Fake, browser: Browser) -> None:
    _graphql(fake, fake.world["admin_token"])
    _hubs(fake, fake.world["member_token"])
    _hubs(fake, "not-a-token")
    member = fake.default_world.member_id
    by_user = _rows(browser.get(f"/inspector?user={member}").text)
    assert len(by_user) == 1
    assert "/v2/content/hubs" in by_user[0]
    by_status = _rows(browser.get("/inspector?status=4xx").text)
    assert len(by_status) == 1
    assert ">401<" in by_status[0]
    by_operation = _rows(browser.get("/inspector?operation=Viewer").text)
    assert len(by_operation) == 1
    bad = browser.get("/inspector?status=teapot")
    assert bad.status_code == 400
    assert "429" in bad.text


def test_fault_rules_are_added_and_cleared_in_the_page(fake: Fake, browser: Browser) -> None:
    added = browser.post(
        "/inspector/faults",
        {"action": "add", "endpoint": "hubs", "status": "503", "retry_after": "7", "count": "2"},
    )
    assert added.status_code == 303
    notice = browser.get(added.headers["location"].removeprefix("/ui").split("#")[0]).text
    assert "Fault rule fault-1 added: the hubs endpoint answers 503 with Retry-After 7" in notice
    assert _hubs(fake, fake.world["admin_token"]) == 503
    removed = browser.post("/inspector/faults", {"action": "remove", "rule": "fault-1"})
    assert removed.status_code == 303
    assert _hubs(fake, fake.world["admin_token"]) == 200

    browser.post("/inspector/faults", {"action": "add", "endpoint": "any", "drop": "on"})
    browser.post("/inspector/faults", {"action": "rate-limit", "on": "true"})
    assert fake.deployment.faults.rate_limit
    browser.post("/inspector/faults", {"action": "clear"})
    assert fake.deployment.faults.rules() == []
    assert not fake.deployment.faults.rate_limit

    refused = browser.post("/inspector/faults", {"action": "add", "status": "soon"})
    assert refused.status_code == 400
    assert "Status must be a whole number" in refused.text


def test_reset_asks_first_then_brings_the_seeded_world_back(fake: Fake, browser: Browser) -> None:
    member = fake.default_world.member_id
    organization = fake.default_world.organization_id
    fake.remove_user(member)
    fake.deployment.faults.add("hubs", status=500)
    asked = browser.get("/inspector/reset")
    assert "Reset the fake?" in asked.text
    assert organization not in fake.deployment.users[member].memberships
    done = browser.post("/inspector/reset", {})
    assert done.status_code == 303
    assert organization in fake.deployment.users[member].memberships
    assert fake.deployment.faults.rules() == []


def test_removing_a_user_asks_first(fake: Fake, browser: Browser) -> None:
    member = fake.default_world.member_id
    organization = fake.default_world.organization_id
    page = browser.get("/inspector").text
    query = urlencode({"user": member, "organization": organization})
    assert f"/ui/inspector/users/remove?{query}".replace("&", "&amp;") in page
    asked = browser.get(f"/inspector/users/remove?user={member}&organization={organization}")
    assert asked.status_code == 200
    assert "Remove user" in asked.text
    assert organization in fake.deployment.users[member].memberships
    browser.post(
        "/inspector/users", {"user": member, "organization": organization, "action": "remove"}
    )
    assert organization not in fake.deployment.users[member].memberships


def test_the_last_admin_is_neither_removed_nor_demoted(fake: Fake, browser: Browser) -> None:
    admin = fake.default_world.admin_id
    organization = fake.default_world.organization_id
    page = browser.get("/inspector").text
    assert "Last admin: cannot be removed" in page
    for form in (
        {"action": "remove"},
        {"action": "role", "role": "member"},
    ):
        refused = browser.post(
            "/inspector/users", {"user": admin, "organization": organization, **form}
        )
        assert refused.status_code == 403
        assert "last admin" in refused.text
        assert "Make another user an admin first" in refused.text
    assert fake.deployment.users[admin].memberships[organization].value == "admin"
    # With a second admin, the first may go.
    fake.set_role(fake.default_world.member_id, "admin")
    removed = browser.post(
        "/inspector/users", {"user": admin, "organization": organization, "action": "remove"}
    )
    assert removed.status_code == 303


def test_the_log_entry_names_operation_credential_kind_and_fault(fake: Fake) -> None:
    fake.deployment.faults.add("graphql", operation="Viewer", status=429, count=1)
    _graphql(fake, fake.world["admin_token"])
    entry = fake.request_log[-1].to_json()
    assert entry["operation"] == "Viewer"
    assert entry["via"] == "pat"
    assert entry["fault"] == "fault-1"
    assert entry["status"] == 429
    assert isinstance(entry["at"], float)
    _graphql(fake, fake.world["admin_token"])
    assert fake.request_log[-1].fault is None
