"""The management page over HTTP without a browser: forms, refusals, forgery, secrecy.

These run everywhere (no Chromium needed): an httpx client talks to the in-process fake.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from patgate import Fake

CSRF = re.compile(r'name="csrf" value="([0-9a-f]{64})"')


class Browser:
    """A cookie-keeping client of the page, the way a web browser posts forms."""

    def __init__(self, fake: Fake) -> None:
        self.fake = fake
        self.ui = fake.world["ui_url"]
        self.client = httpx.Client(transport=fake.httpx_transport(), timeout=10)
        self.csrf = ""

    def get(self, path: str) -> httpx.Response:
        response = self.client.get(self.ui + path)
        found = CSRF.search(response.text)
        if found:
            self.csrf = found.group(1)
        return response

    def post(self, path: str, data: dict[str, str], **headers: str) -> httpx.Response:
        if not self.csrf:
            self.get("/")
        return self.client.post(
            self.ui + path, data={"csrf": self.csrf, **data}, headers=headers or None
        )

    def act_as(self, user_id: str) -> None:
        response = self.post("/session", {"user": user_id})
        assert response.status_code == 303, response.text
        assert response.headers["location"] == "/ui/tokens?done=signed-in"


@pytest.fixture
def fake() -> Iterator[Fake]:
    with Fake() as started:
        yield started


@pytest.fixture
def browser(fake: Fake) -> Iterator[Browser]:
    person = Browser(fake)
    yield person
    person.client.close()


def _problem(response: httpx.Response) -> str:
    found = re.search(r'class="(?:problem|field-error)"[^>]*>(.*?)</p>', response.text)
    assert found, response.text
    return found.group(1)


def _hubs(fake: Fake, token: str) -> int:
    return httpx.get(fake.urls.hubs_url, headers={"Authorization": f"Bearer {token}"}).status_code


def test_the_target_file_names_the_page_and_it_answers_html(fake: Fake, browser: Browser) -> None:
    assert fake.world["ui_url"] == fake.world["base_url"] + "/ui"
    response = browser.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["cache-control"] == "no-store"
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "<h1>Who you are</h1>" in response.text
    # No external asset: every src and href stays on the page's own path.
    for url in re.findall(r'(?:src|href)="([^"]+)"', response.text):
        assert url.startswith(("/ui", "#")), url
    for asset, kind in (("page.css", "text/css"), ("page.js", "text/javascript")):
        served = browser.get(f"/assets/{asset}")
        assert served.status_code == 200
        assert served.headers["content-type"].startswith(kind)


def test_without_a_picked_user_the_token_pages_send_you_to_pick_one(browser: Browser) -> None:
    for path in ("/tokens", "/approvals"):
        response = browser.get(path)
        assert response.status_code == 303
        assert response.headers["location"] == "/ui/?done=pick"


def test_a_cookie_naming_an_unknown_user_counts_as_nobody(fake: Fake, browser: Browser) -> None:
    browser.client.cookies.set("patgate_ui_user", "VXNlcjpub2JvZHk=", path="/ui")
    response = browser.get("/")
    assert response.status_code == 200
    assert "Nobody picked yet" in response.text


@pytest.mark.parametrize(
    ("headers", "data"),
    [
        ({}, {"csrf": ""}),
        ({}, {"csrf": "0" * 64}),
        ({"Origin": "https://evil.example"}, {}),
        ({"Sec-Fetch-Site": "cross-site"}, {}),
    ],
    ids=["no field", "forged field", "another origin", "cross-site fetch"],
)
def test_a_forged_form_post_is_refused_and_changes_nothing(
    fake: Fake, browser: Browser, headers: dict[str, str], data: dict[str, str]
) -> None:
    member = fake.default_world.member_id
    browser.get("/")
    response = browser.client.post(
        browser.ui + "/inspector/users",
        data={"csrf": browser.csrf, "user": member, "action": "remove"}
        | {"organization": fake.default_world.organization_id}
        | data,
        headers=headers,
    )
    assert response.status_code == 403
    assert "another site" in _problem(response) or "expired" in _problem(response)
    assert _hubs(fake, fake.world["member_token"]) == 200


def test_a_form_field_made_for_another_browser_is_refused(fake: Fake, browser: Browser) -> None:
    other = Browser(fake)
    other.get("/")
    browser.get("/")
    response = browser.client.post(
        browser.ui + "/session", data={"csrf": other.csrf, "user": fake.default_world.admin_id}
    )
    assert response.status_code == 403
    other.client.close()


@pytest.mark.parametrize(
    ("path", "form", "status", "problem"),
    [
        ("/inspector/clock", {"seconds": "soon"}, 400, "seconds must be a whole number"),
        ("/inspector/clock", {"seconds": "0"}, 400, "seconds must be a whole number"),
        ("/inspector/clock", {"seconds": "9" * 5000}, 400, "seconds must be a whole number"),
        ("/inspector/clock", {}, 400, "the form needs a &#x27;seconds&#x27; field"),
        (
            "/inspector/users",
            {"user": "x", "organization": "y", "action": "role", "role": "boss"},
            400,
            "role must be one of admin, member, restricted",
        ),
        (
            "/inspector/users",
            {"user": "x", "organization": "y", "action": "explode"},
            400,
            "action must be remove, restore or role",
        ),
        (
            "/inspector/users",
            {"user": "nobody", "organization": "y", "action": "remove"},
            404,
            "no user",
        ),
        ("/session", {"user": "nobody"}, 404, "no such user"),
    ],
)
def test_bad_input_gets_a_4xx_page_that_names_the_problem(
    browser: Browser, path: str, form: dict[str, str], status: int, problem: str
) -> None:
    response = browser.post(path, form)
    assert response.status_code == status
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert problem in _problem(response)


def test_malformed_requests_get_4xx_pages(browser: Browser) -> None:
    browser.get("/")
    cases = [
        (
            browser.client.post(
                browser.ui + "/session",
                content=b"csrf=%ff%fe",
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            ),
            400,
            "not valid UTF-8",
        ),
        (
            browser.client.post(browser.ui + "/session", json={"user": "x"}),
            415,
            "send the form as a web browser does",
        ),
        (
            browser.client.post(
                browser.ui + "/session",
                content=b"a" * (65 * 1024),
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            ),
            413,
            "larger than 64 KiB",
        ),
        (browser.client.get(browser.ui + "/nowhere"), 404, "no such address"),
        (browser.client.get(browser.ui + "/?done=%zz"), 400, "malformed percent-escape"),
    ]
    for response, status, problem in cases:
        assert response.status_code == status
        assert problem in _problem(response)
    wrong_method = browser.client.delete(browser.ui + "/tokens")
    assert wrong_method.status_code == 405
    assert wrong_method.headers["allow"] == "GET, HEAD, POST, OPTIONS"


def test_a_token_name_is_shown_as_text_never_as_markup(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.admin_id)
    browser.post("/tokens", {"name": "<script>alert(1)</script>"})
    listing = browser.get("/tokens").text
    assert "<script>alert(1)</script>" not in listing
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in listing


def test_the_value_is_in_the_create_answer_only(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.admin_id)
    created = browser.post("/tokens", {"name": "once"})
    assert created.status_code == 200
    assert created.headers["cache-control"] == "no-store"
    value = re.search(r'id="token-value"[^>]*value="([^"]+)"', created.text)
    assert value is not None
    secret = value.group(1)
    assert _hubs(fake, secret) == 200
    for path in ("/", "/tokens", "/approvals", "/inspector", "/inspector/requests"):
        assert secret not in browser.get(path).text
    assert all(secret not in entry.url for entry in fake.request_log)
    assert secret not in repr(fake.request_log)


def test_a_member_request_pends_until_an_admin_approves(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.member_id)
    created = browser.post("/tokens", {"name": "pending one"})
    assert "Token requested" in created.text
    secret = re.search(r'id="token-value"[^>]*value="([^"]+)"', created.text)
    assert secret is not None
    assert _hubs(fake, secret.group(1)) == 401
    assert "Pending approval" in browser.get("/tokens").text

    # The member may not approve their own request: the domain refuses, the page says so.
    record = next(
        r
        for r in fake.deployment.tokens_of(fake.default_world.member_id)
        if r.name == "pending one"
    )
    refused = browser.post("/approvals", {"id": record.id, "decision": "approve"})
    assert refused.status_code == 403
    assert "only an organization admin approves" in _problem(refused)
    assert _hubs(fake, secret.group(1)) == 401

    browser.act_as(fake.default_world.admin_id)
    assert "pending one" in browser.get("/approvals").text
    approved = browser.post("/approvals", {"id": record.id, "decision": "approve"})
    assert approved.status_code == 303
    assert _hubs(fake, secret.group(1)) == 200
    again = browser.post("/approvals", {"id": record.id, "decision": "approve"})
    assert again.status_code == 404
    assert "no such pending token request" in _problem(again)


def test_an_admin_cannot_reject_a_token_that_is_not_pending(fake: Fake, browser: Browser) -> None:
    browser.act_as(fake.default_world.admin_id)
    record = next(iter(fake.deployment.tokens_of(fake.default_world.member_id)))
    refused = browser.post("/approvals", {"id": record.id, "decision": "reject"})
    assert refused.status_code == 404
    assert _hubs(fake, fake.world["member_token"]) == 200


def test_deleting_another_users_token_looks_like_an_unknown_one(
    fake: Fake, browser: Browser
) -> None:
    browser.act_as(fake.default_world.admin_id)
    record = next(iter(fake.deployment.tokens_of(fake.default_world.member_id)))
    for response in (
        browser.get(f"/tokens/delete?id={record.id}"),
        browser.post("/tokens/delete", {"id": record.id}),
    ):
        assert response.status_code == 404
        assert "no such personal access token" in _problem(response)
    assert _hubs(fake, fake.world["member_token"]) == 200


def test_the_latest_requests_leave_out_the_pages_own(fake: Fake, browser: Browser) -> None:
    _hubs(fake, fake.world["admin_token"])
    browser.get("/inspector")
    table = browser.get("/inspector/requests").text
    assert "/v2/content/hubs" in table
    assert "/ui" not in table
    assert fake.world["admin_token"] not in table


def test_the_inspector_lists_the_active_faults(fake: Fake, browser: Browser) -> None:
    assert "No faults are active." in browser.get("/inspector").text
    fake.deployment.faults.add("hubs", status=503, retry_after=5, count=2)
    fake.deployment.faults.set_rate_limit(True)
    _hubs(fake, fake.world["admin_token"])
    page = browser.get("/inspector").text
    assert "status 503, Retry-After 5" in page
    assert "1 more" in page
    assert "rate limit (60 requests per minute per key) is on" in page


ROUTES = (
    "/",
    "/session",
    "/tokens",
    "/tokens/delete",
    "/approvals",
    "/inspector",
    "/inspector/requests",
    "/inspector/users",
    "/inspector/clock",
)
BAD_BODIES = (b"", b"&&&", b"csrf", b"user=%", b"id=\x00", b"\xc3\x28", b"a=1&a=2", b"=" * 10)


@pytest.mark.parametrize("path", ROUTES)
def test_no_request_to_any_address_of_the_page_gets_a_5xx(
    fake: Fake, browser: Browser, path: str
) -> None:
    browser.act_as(fake.default_world.admin_id)
    requests = [
        (method, query, body, content_type)
        for method in ("GET", "POST", "PUT", "DELETE")
        for query in ("", "?id=%zz&done=x", "?id=unknown&done=pick")
        for body in BAD_BODIES
        for content_type in ("application/x-www-form-urlencoded", "text/plain")
    ]
    for method, query, body, content_type in requests:
        response = browser.client.request(
            method,
            browser.ui + path + query,
            content=body + b"&csrf=" + browser.csrf.encode(),
            headers={"Content-Type": content_type},
        )
        assert response.status_code < 500, (method, path, query, body)
        assert response.headers["content-type"].startswith("text/html")
