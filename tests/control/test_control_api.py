"""The HTTP control API of an in-process fake: token, shapes, and refusals that name the problem."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from patgate.guards.redaction import REDACTED
from patgate.harness import Fake


@pytest.fixture
def fake() -> Any:
    with Fake() as running:
        yield running


def _call(
    fake: Fake, method: str, path: str, body: Any = None, *, token: str | None = ""
) -> httpx.Response:
    headers = {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token or fake.control_token}"
    return httpx.request(method, fake.world["control_url"] + path, json=body, headers=headers)


def _state(fake: Fake) -> dict[str, Any]:
    snapshot = fake.snapshot()
    del snapshot["clock"]["now"]  # real time moves on; the offset must not
    return snapshot


def test_the_control_url_is_on_the_fakes_origin_under_the_reserved_prefix(fake: Fake) -> None:
    assert fake.world["control_url"] == fake.world["base_url"] + "/__patgate"


@pytest.mark.parametrize("token", [None, "wrong", "Basic abc"])
def test_a_call_without_the_control_token_gets_401_and_changes_nothing(
    fake: Fake, token: str | None
) -> None:
    before = _state(fake)
    answer = _call(
        fake, "POST", "/users/remove", {"user_id": fake.default_world.admin_id}, token=token
    )
    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert answer.json()["error"]["code"] == "CONTROL_TOKEN_REQUIRED"
    assert _state(fake) == before


def test_control_calls_are_not_in_the_request_log_and_never_meet_a_fault(fake: Fake) -> None:
    fake.faults.add("any", status=500)
    assert _call(fake, "GET", "/snapshot").status_code == 200
    assert len(fake.request_log) == 0


def test_users_and_roles_over_http(fake: Fake) -> None:
    added = _call(fake, "POST", "/users", {"name": "Ada Lovelace", "role": "admin"})
    assert added.status_code == 201
    user = added.json()
    assert user["roles"] == {fake.world["organization_id"]: "admin"}
    removed = _call(fake, "POST", "/users/remove", {"user_id": user["id"]}).json()
    assert removed["roles"] == {}
    restored = _call(fake, "POST", "/users/restore", {"user_id": user["id"]}).json()
    assert restored["roles"] == {fake.world["organization_id"]: "admin"}
    demoted = _call(fake, "POST", "/users/role", {"user_id": user["id"], "role": "restricted"})
    assert demoted.json()["roles"] == {fake.world["organization_id"]: "restricted"}
    listed = _call(fake, "GET", "/users").json()["users"]
    assert user["id"] in [u["id"] for u in listed]


def test_the_ui_path_over_http(fake: Fake) -> None:
    member = fake.default_world.member_id
    created = _call(fake, "POST", "/token-requests", {"user_id": member, "name": "ci"}).json()
    assert created["status"] == "pending"
    assert created["value"].startswith(fake.world["pat_prefix"])
    pending = _call(fake, "GET", "/token-requests").json()["pending"]
    assert [p["id"] for p in pending] == [created["id"]]
    assert "value" not in pending[0]
    approved = _call(fake, "POST", "/token-requests/approve", {"token_id": created["id"]})
    assert approved.json()["status"] == "active"
    again = _call(fake, "POST", "/token-requests/reject", {"token_id": created["id"]})
    assert again.status_code == 404
    assert again.json()["error"]["message"] == "no such pending token request"


def test_clock_log_faults_and_rate_limit_over_http(fake: Fake) -> None:
    assert _call(fake, "POST", "/clock/advance", {"seconds": 30}).json()["offset_seconds"] == 30
    assert _call(fake, "GET", "/clock").json()["offset_seconds"] == 30
    rule = _call(fake, "POST", "/faults", {"endpoint": "hubs", "status": 429, "retry_after": 2})
    assert rule.status_code == 201
    hubs = httpx.get(
        fake.world["base_url"] + "/v2/content/hubs",
        headers={"Authorization": f"Bearer {fake.world['admin_token']}"},
    )
    assert (hubs.status_code, hubs.headers["Retry-After"]) == (429, "2")
    log = _call(fake, "GET", "/requests?status=4xx&path=/hubs").json()
    assert log["total"] == 1
    [entry] = log["requests"]
    assert entry["status"] == 429
    assert entry["principal"] == fake.default_world.admin_id
    assert ["authorization", f"Bearer {REDACTED}"] in entry["headers"]
    assert fake.world["admin_token"] not in str(log)
    assert _call(fake, "POST", "/faults/remove", {"id": rule.json()["id"]}).status_code == 200
    assert _call(fake, "PUT", "/rate-limit", {"enabled": True}).json() == {"rate_limit": True}
    assert _call(fake, "GET", "/faults").json() == {"faults": [], "rate_limit": True}
    assert _call(fake, "DELETE", "/faults").status_code == 200
    assert _call(fake, "DELETE", "/requests").status_code == 200
    assert _call(fake, "GET", "/requests").json()["total"] == 0


def test_clients_hubs_snapshot_and_reset_over_http(fake: Fake) -> None:
    client = _call(fake, "POST", "/clients", {"user_id": fake.default_world.member_id}).json()
    assert set(client) == {"client_id", "client_secret"}
    assert client["client_id"] in [
        c["client_id"] for c in _call(fake, "GET", "/clients").json()["clients"]
    ]
    hub = _call(fake, "POST", "/hubs", {"name": "new-hub"}).json()
    assert hub["id"] in [h["id"] for h in _call(fake, "GET", "/hubs").json()["hubs"]]
    assert _call(fake, "POST", "/reset").json() == {"reset": True}
    snapshot = _call(fake, "GET", "/snapshot").json()
    assert hub["id"] not in [h["id"] for h in snapshot["hubs"]]
    assert client["client_secret"] not in str(snapshot)


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "named"),
    [
        ("POST", "/users", {"name": "X", "colour": 1}, 400, "unknown field(s) ['colour']"),
        ("POST", "/users", {}, 400, "name is required"),
        ("POST", "/users", {"name": "X", "role": "owner"}, 400, "role must be admin"),
        ("POST", "/users/remove", {"user_id": "nobody"}, 404, "no user 'nobody'"),
        ("POST", "/clock/advance", {"seconds": "soon"}, 400, "seconds must be a number"),
        ("POST", "/clock/advance", {"seconds": -1}, 400, "seconds must be from 0"),
        ("PUT", "/rate-limit", {"enabled": "yes"}, 400, "enabled must be true or false"),
        ("POST", "/faults", {"status": 42}, 400, "status must be a whole number"),
        ("GET", "/requests?size=0", None, 400, "size must be a whole number"),
        ("GET", "/requests?status=teapot", None, 400, "status must be a code"),
        ("GET", "/nowhere", None, 404, "there are: POST /__patgate/reset"),
        ("DELETE", "/snapshot", None, 405, "this answers GET only"),
    ],
)
def test_a_bad_control_call_gets_a_4xx_naming_the_problem(
    fake: Fake, method: str, path: str, body: Any, status: int, named: str
) -> None:
    answer = _call(fake, method, path, body)
    assert answer.status_code == status
    assert named in answer.json()["error"]["message"]


def test_a_body_that_is_not_a_json_object_is_refused(fake: Fake) -> None:
    answer = httpx.post(
        fake.world["control_url"] + "/reset",
        content=b"[1,",
        headers={"Authorization": f"Bearer {fake.control_token}"},
    )
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "BAD_JSON")


@pytest.mark.parametrize(
    ("path", "body", "named"),
    [
        ("/users", {"name": "X", "organization_id": None}, "organization_id must be a string"),
        ("/users", {"name": "X", "email": ""}, "email must be a non-empty string"),
        ("/users", {"name": "X", "organization_id": ""}, "organization_id must be a non-empty"),
        ("/users/remove", {"user_id": ""}, "user_id must be a non-empty string"),
        ("/users/role", {"user_id": "u", "role": None}, "role must be a string"),
        ("/hubs", {"name": "H", "status": "GONE"}, "status must be ACTIVE or ARCHIVED"),
        ("/token-requests", {"user_id": "u", "name": ""}, "name must be a non-empty string"),
        ("/token-requests/approve", {"token_id": None}, "token_id must be a string"),
        ("/faults", {"status": 503, "count": None}, "count must be a whole number"),
        ("/faults", {"status": 503, "operation": ""}, "operation must be a non-empty string"),
        ("/faults/remove", {"id": 7}, "id must be a string"),
        ("/clock/advance", {"seconds": 1e308}, "seconds must be from 0 to 315360000"),
    ],
)
def test_a_bad_field_is_bad_field_on_every_operation(
    fake: Fake, path: str, body: Any, named: str
) -> None:
    before = _state(fake)
    answer = _call(fake, "POST", path, body)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "BAD_FIELD"
    assert named in answer.json()["error"]["message"]
    assert _state(fake) == before


def test_a_rule_refusing_a_value_answers_bad_field_too(fake: Fake) -> None:
    # The fault model and the PAT naming rule refuse these; the code is the API's own.
    admin = fake.default_world.admin_id
    for path, body in [
        ("/faults", {"drop": True, "status": 503}),
        ("/faults", {}),
        ("/token-requests", {"user_id": admin, "name": "tab\there"}),
    ]:
        answer = _call(fake, "POST", path, body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "BAD_FIELD"), body


@pytest.mark.parametrize(
    "path", ["/reset", "/users", "/clients", "/hubs", "/token-requests/reject", "/faults/remove"]
)
def test_the_same_missing_or_unknown_field_gets_the_same_code(fake: Fake, path: str) -> None:
    unknown = _call(fake, "POST", path, {"colour": 1})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "UNKNOWN_FIELD")
    if path != "/reset":
        missing = _call(fake, "POST", path, {})
        assert (missing.status_code, missing.json()["error"]["code"]) == (400, "MISSING_FIELD")


def test_an_unknown_id_is_not_found_on_every_operation(fake: Fake) -> None:
    for path, body in [
        ("/users", {"name": "X", "organization_id": "nowhere"}),
        ("/users/restore", {"user_id": "nobody"}),
        ("/clients", {"user_id": "nobody"}),
        ("/hubs", {"name": "H", "organization_id": "nowhere"}),
        ("/token-requests", {"user_id": "nobody", "name": "n"}),
        ("/token-requests/approve", {"token_id": "nothing"}),
        ("/token-requests/reject", {"token_id": "nothing"}),
        ("/faults/remove", {"id": "nothing"}),
    ]:
        answer = _call(fake, "POST", path, body)
        assert (answer.status_code, answer.json()["error"]["code"]) == (404, "NOT_FOUND"), path


@pytest.mark.parametrize("query", ["page=", "size=", "status=", "status=4XX", "page=%D9%A3"])
def test_an_empty_or_non_ascii_query_value_is_refused(fake: Fake, query: str) -> None:
    answer = _call(fake, "GET", "/requests?" + query)
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "BAD_PARAMETER")


def test_a_get_reads_no_body_and_an_integral_float_is_an_integer(fake: Fake) -> None:
    answer = httpx.request(
        "GET",
        fake.world["control_url"] + "/users",
        content=b"[1,",
        headers={"Authorization": f"Bearer {fake.control_token}"},
    )
    assert answer.status_code == 200
    rule = _call(fake, "POST", "/faults", {"status": 503.0, "count": 2.0})
    assert rule.status_code == 201
    assert (rule.json()["status"], rule.json()["count"]) == (503, 2)
