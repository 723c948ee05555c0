"""The management page against an attacker who knows how it works but not its key: cookies
built to be slow to parse, Host headers that look like loopback, the key leaking into the
request log or the address bar, redirects that leave the page, forged posts to the
inspector's forms, and the one-time reveal handle. (security L96, L97)"""

from __future__ import annotations

import json
import re
import time

import httpx
import pytest

from patgate import Fake
from tests.ui.conftest import Browser

# CPython's cookie parser is quadratic on a quoted value of backslashes: 60,000 of them
# took 8.4 s before the page read cookies itself.
SLOW_COOKIE = 'x="' + "\\" * 60_000 + '"'


def test_a_cookie_built_to_be_slow_is_read_in_linear_time(fake: Fake, browser: Browser) -> None:
    started = time.perf_counter()
    client = httpx.Client(transport=fake.httpx_transport())
    stranger = client.get(fake.urls.ui_url + "/", headers=[("Cookie", SLOW_COOKIE)] * 4)
    assert stranger.status_code == 401
    # The person's own cookies still count when a hostile one comes first.
    signed_in = browser.client.get(browser.ui + "/", headers={"Cookie": SLOW_COOKIE[:5000]})
    assert time.perf_counter() - started < 2.0
    assert signed_in.status_code == 401  # a Cookie header given here replaces the client's
    cookies = "; ".join(f"{k}={v}" for k, v in browser.client.cookies.items())
    page = client.get(
        browser.ui + "/",
        headers=[("Cookie", SLOW_COOKIE[:5000] + '"; junk'), ("Cookie", cookies)],
    )
    assert page.status_code == 200, page.text


@pytest.mark.parametrize(
    "host",
    [
        "[::1].evil.example",
        "[::1]evil.example",
        "[::1]:80.evil.example",
        "localhost.",
        "localhost.evil.example",
        "evil.example@localhost",
        "127.1",
        "[::ffff:127.0.0.1]",
        "localhost:80:80",
        "",
    ],
)
def test_a_host_that_only_looks_like_loopback_gets_421(browser: Browser, host: str) -> None:
    response = browser.client.get(browser.ui + "/inspector", headers={"Host": host})
    assert response.status_code == 421
    assert "Users and roles" not in response.text


@pytest.mark.parametrize("host", ["LOCALHOST", "localhost:65535", "[::1]", "127.0.0.1 "])
def test_the_loopback_names_in_any_case_with_any_port_reach_the_page(
    browser: Browser, host: str
) -> None:
    assert browser.client.get(browser.ui + "/", headers={"Host": host}).status_code == 200


def test_the_key_never_reaches_the_request_log(fake: Fake, browser: Browser) -> None:
    key = fake.ui_secret
    client = httpx.Client(transport=fake.httpx_transport())
    client.get(fake.urls.ui_url + "/assets/page.css", headers={"Referer": fake.world["ui_url"]})
    client.get(fake.urls.ui_url + f"/nowhere/{key}", headers={"X-Pasted": f"look: {key}"})
    client.get(fake.urls.ui_url + f"/?next=key%3D{key}")
    browser.get("/")
    browser.post("/sign-in", {"key": fake.world["ui_url"]})
    browser.get(f"/inspector?k={key}")
    client.get(fake.urls.base_url + "/v2/content/hubs", headers={"Authorization": key})
    logged = json.dumps([entry.to_json() for entry in fake.request_log])
    assert len(fake.request_log) >= 7
    assert key not in logged
    assert key not in repr(fake.request_log)
    for cookie in browser.client.cookies.values():
        assert cookie not in logged


@pytest.mark.parametrize(
    "address", ["/nowhere", "/tokens?%zz", "/assets/nothing.css", "/inspector?note=x&note=y"]
)
def test_a_signed_in_address_carrying_the_key_is_always_redirected_without_it(
    fake: Fake, browser: Browser, address: str
) -> None:
    separator = "&" if "?" in address else "?"
    answer = browser.client.get(browser.ui + address + separator + f"key={fake.ui_secret}")
    assert answer.status_code == 303
    assert fake.ui_secret not in answer.headers["location"]
    assert answer.headers["location"].startswith("/ui/")


@pytest.mark.parametrize(
    "path", ["//evil.example", "/\\evil.example", "//evil.example/%2F..", "/%2F%2Fevil.example"]
)
@pytest.mark.parametrize("signed_in", [False, True])
def test_no_redirect_leaves_the_page(
    fake: Fake, browser: Browser, path: str, signed_in: bool
) -> None:
    client = browser.client if signed_in else httpx.Client(transport=fake.httpx_transport())
    answer = client.get(fake.urls.ui_url + path + f"?key={fake.ui_secret}")
    assert answer.status_code == 303
    location = answer.headers["location"]
    assert location.startswith("/ui/"), location
    assert "://" not in location
    assert not location.startswith("//")


def _count_faults(fake: Fake) -> int:
    return len(fake.deployment.faults)


FORGED = [
    ("no field", {}, {}),
    ("another site", {"csrf": None}, {"Origin": "http://evil.example"}),
    ("another port", {"csrf": None}, {"Origin": "http://localhost:1"}),
    ("null origin", {"csrf": None}, {"Origin": "null"}),
    ("cross-site fetch", {"csrf": None}, {"Sec-Fetch-Site": "cross-site"}),
    ("same-site fetch", {"csrf": None}, {"Sec-Fetch-Site": "same-site"}),
    ("wrong field", {"csrf": "0" * 64}, {}),
]


@pytest.mark.parametrize(("case", "field", "headers"), FORGED, ids=[c for c, _, _ in FORGED])
def test_forged_posts_to_the_inspectors_forms_change_nothing(
    fake: Fake, browser: Browser, case: str, field: dict[str, str | None], headers: dict[str, str]
) -> None:
    browser.get("/inspector")
    token = fake.issue_token(fake.default_world.admin_id, "kept")
    fake.deployment.faults.add("hubs", status=503)
    before = fake.deployment.clock.timestamp()
    forms = [
        ("/inspector/faults", {"action": "add", "endpoint": "token", "status": "500"}),
        ("/inspector/faults", {"action": "clear"}),
        ("/inspector/faults", {"action": "remove", "rule": "fault-1"}),
        ("/inspector/faults", {"action": "rate-limit", "on": "true"}),
        ("/inspector/clock", {"seconds": "86400"}),
        ("/inspector/reset", {"confirm": "yes"}),
        (
            "/inspector/users",
            {
                "action": "remove",
                "user": fake.default_world.member_id,
                "organization": fake.default_world.organization_id,
            },
        ),
    ]
    for path, data in forms:
        sent = dict(data)
        if "csrf" in field:
            sent["csrf"] = field["csrf"] or browser.csrf
        answer = browser.client.post(browser.ui + path, data=sent, headers=headers)
        assert answer.status_code == 403, (path, answer.status_code)
    assert _count_faults(fake) == 1
    assert not fake.deployment.faults.rate_limit
    assert fake.deployment.clock.timestamp() - before < 60
    assert fake.deployment.authenticate(token).user_id == fake.default_world.admin_id
    member = fake.deployment.user(fake.default_world.member_id)
    assert fake.default_world.organization_id in member.memberships


def _create(browser: Browser, name: str) -> str:
    answer = browser.post("/tokens", {"name": name})
    assert answer.status_code == 303, answer.text
    location = answer.headers["location"]
    found = re.fullmatch(r"/ui/tokens/created\?handle=([A-Za-z0-9_-]+)", location)
    assert found is not None, location
    return found.group(1)


def test_the_reveal_handle_is_unguessable_single_use_and_of_one_fake(
    fake: Fake, browser: Browser
) -> None:
    browser.act_as(fake.default_world.admin_id)
    handles = {_create(browser, f"reveal {n}") for n in range(3)}
    assert len(handles) == 3
    assert all(len(handle) >= 22 for handle in handles)  # at least 128 random bits
    handle = handles.pop()
    first = browser.get(f"/tokens/created?handle={handle}")
    shapes = re.findall(re.escape(fake.deployment.pat_format.prefix) + r"[\w.-]+", first.text)
    value = max(shapes, key=len)  # the whole value, not its masked start
    assert fake.deployment.authenticate(value).user_id == fake.default_world.admin_id
    again = browser.get(f"/tokens/created?handle={handle}")
    assert value not in again.text
    # Another fake, signed in and acting as the same user id, has never heard of it.
    other = Fake(urls={"auth_url": "https://auth.other.test", "base_url": "https://api.other.test"})
    elsewhere = Browser(other)
    elsewhere.act_as(fake.default_world.admin_id)
    stranger = elsewhere.get(f"/tokens/created?handle={handles.pop()}")
    unknown = elsewhere.get("/tokens/created?handle=" + "A" * 24)
    assert (stranger.status_code, unknown.status_code) == (404, 404)
    assert fake.deployment.pat_format.prefix not in stranger.text
    elsewhere.client.close()
    # The value never travels in an address, and the log never holds it.
    logged = json.dumps([entry.to_json() for entry in fake.request_log])
    assert value not in logged


def test_a_hostile_value_in_the_sign_in_form_is_shown_as_text(fake: Fake) -> None:
    client = httpx.Client(transport=fake.httpx_transport())
    answer = client.get(fake.urls.ui_url + '/?key="><script>alert(1)</script>')
    assert answer.status_code in (401, 403)
    assert "<script>alert" not in answer.text


HOSTILE_ADDRESSES = [
    "/inspector/request?number=" + "9" * 5000,  # int() refuses more than 4,300 digits
    "/inspector/request?number=%C2%B2",  # a superscript two is a digit to str.isdigit
    "/inspector?status=" + "9" * 5000,
    "/inspector?page=" + "9" * 5000,
    "/inspector/requests?user=" + "x" * 60_000,
    "/inspector/users/remove?user=%00&organization=" + "x" * 5000,
    "/tokens/delete?id=%C2%B2",
    "/tokens/created?handle=" + "x" * 60_000,
    "/tokens?note=" + "%ff" * 1000,
]


@pytest.mark.parametrize("address", HOSTILE_ADDRESSES, ids=lambda a: a[:40])
def test_hostile_values_in_an_address_get_a_page_never_a_500(
    fake: Fake, browser: Browser, address: str
) -> None:
    browser.act_as(fake.default_world.admin_id)
    answer = browser.get(address)
    assert answer.status_code < 500
    assert answer.headers["content-type"].startswith("text/html")


def test_a_credential_sent_as_an_operation_name_never_reaches_the_log() -> None:
    # Credentials of name characters only are taken whole; with a "-" their start was taken.
    control_token = "Control_token_of_name_characters_0123456789"
    key = "page-key-with-dashes-0123456789ab"
    fake = Fake(control_token=control_token, ui_secret=key)
    world = fake.world
    pat = world["member_token"]
    client = httpx.Client(transport=fake.httpx_transport())
    for secret in (control_token, key, pat, world["client_secret"]):
        client.post(
            world["graphql_url"],
            json={"query": "query Q { __typename }", "operationName": secret},
        )
        client.post(
            world["graphql_url"],
            content=f"query {secret} {{ __typename }}".encode(),
            headers={"Content-Type": "application/graphql"},
        )
    operations = {entry.operation for entry in fake.request_log}
    assert operations <= {"Q", None, "[REDACTED]"}, operations
    logged = json.dumps([entry.to_json() for entry in fake.request_log])
    for secret in (control_token, key, pat, world["client_secret"]):
        assert secret not in logged
    # An ordinary name followed by a newline in JSON is still read.
    client.post(world["graphql_url"], json={"query": "query ListTokens\n{ __typename }"})
    assert fake.request_log[-1].operation == "ListTokens"


def test_one_time_handles_stay_bounded_whatever_one_user_does() -> None:
    from patgate.ui.one_time_handles import CAPACITY, Notice, OneTimeStore

    store = OneTimeStore()
    first = store.put("someone", Notice("kept?"))
    handles = [store.put("attacker", Notice("x" * 1000)) for _ in range(4 * CAPACITY)]
    assert store.take_notice("someone", first) is None  # pushed out: the store stays bounded
    assert store.take_notice("attacker", handles[-1]) is not None
    assert store.take_notice("attacker", handles[-1]) is None  # once
    assert store.take_notice("someone", handles[-2]) is None  # another user's is unknown
