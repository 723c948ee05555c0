"""``patgate serve`` driven purely over HTTP, from a separate process, through every control
operation; a restart with ``--state`` keeps every PAT valid."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest

from patgate.control_client import ControlClient, ControlError
from patgate.wire.control_api import ROUTES

from .served import served

pytestmark = pytest.mark.slow


def _hubs(world: dict[str, Any], token: str) -> httpx.Response:
    return httpx.get(
        world["base_url"] + "/v2/content/hubs", headers={"Authorization": f"Bearer {token}"}
    )


def test_every_control_operation_over_http(tmp_path: Path) -> None:
    with served(tmp_path / "w.json") as world:
        done: set[tuple[str, str]] = set()
        url, token = world["control_url"], world["control_token"]
        assert url == world["base_url"] + "/__patgate"
        refused = httpx.post(url + "/reset")
        assert refused.status_code == 401

        def call(method: str, path: str, body: Any = None) -> Any:
            answer = httpx.request(
                method, url + path, json=body, headers={"Authorization": f"Bearer {token}"}
            )
            assert answer.status_code < 300, answer.text
            done.add((method, path.partition("?")[0]))
            return answer.json()

        org = world["organization_id"]
        snapshot = call("GET", "/snapshot")
        assert call("GET", "/world")["organization_id"] == world["organization_id"]
        admin = next(u["id"] for u in snapshot["users"] if u["roles"].get(org) == "admin")
        user = call("POST", "/users", {"name": "Grace Hopper"})
        call("GET", "/users")
        member_token = world["member_token"]
        member = next(u["id"] for u in snapshot["users"] if u["roles"].get(org) == "member")
        call("POST", "/users/remove", {"user_id": member})
        assert _hubs(world, member_token).status_code == 403
        call("POST", "/users/restore", {"user_id": member})
        assert _hubs(world, member_token).status_code == 200
        call("POST", "/users/role", {"user_id": user["id"], "role": "restricted"})
        call("POST", "/clients", {"user_id": user["id"]})
        call("GET", "/clients")
        call("POST", "/hubs", {"name": "served-hub"})
        call("GET", "/hubs")
        asked = call("POST", "/token-requests", {"user_id": member, "name": "ci"})
        rejected = call("POST", "/token-requests", {"user_id": member, "name": "no"})
        assert len(call("GET", "/token-requests")["pending"]) == 2
        assert _hubs(world, asked["value"]).status_code == 401
        call("POST", "/token-requests/approve", {"token_id": asked["id"], "approver_id": admin})
        assert _hubs(world, asked["value"]).status_code == 200
        call("POST", "/token-requests/reject", {"token_id": rejected["id"]})
        assert call("GET", "/profile")["listing_order"] == "created_ascending"
        call("GET", "/clock")
        assert call("POST", "/clock/advance", {"seconds": 120})["offset_seconds"] == 120
        rule = call("POST", "/faults", {"endpoint": "hubs", "status": 503, "count": 1})
        call("GET", "/faults")
        assert _hubs(world, world["admin_token"]).status_code == 503
        rule = call("POST", "/faults", {"endpoint": "token", "status": 429})
        call("POST", "/faults/remove", {"id": rule["id"]})
        call("PUT", "/rate-limit", {"enabled": True})
        call("DELETE", "/faults")
        log = call("GET", "/requests?status=503")
        assert [e["status"] for e in log["requests"]] == [503]
        call("DELETE", "/requests")
        call("POST", "/reset")
        assert _hubs(world, asked["value"]).status_code == 401
        assert _hubs(world, world["admin_token"]).status_code == 200
        assert done == {(route.method, route.path) for route in ROUTES}


def test_the_python_control_client_has_the_fakes_names_and_works(tmp_path: Path) -> None:
    with (
        served(tmp_path / "w.json") as world,
        ControlClient(world["control_url"], world["control_token"]) as control,
    ):
        users = control.users()
        member = next(u["id"] for u in users if "member" in u["roles"].values())
        value = control.issue_token(member, "from python")
        assert _hubs(world, value).status_code == 200
        control.faults.add("hubs", status=429, retry_after=3, count=1)
        limited = _hubs(world, value)
        assert (limited.status_code, limited.headers["Retry-After"]) == (429, "3")
        assert control.requests(status=429)["total"] == 1
        control.reset()
        assert _hubs(world, value).status_code == 401
        with pytest.raises(ControlError, match="404 NOT_FOUND: no user 'nobody'"):
            control.remove_user("nobody")
        with (
            ControlClient(world["control_url"], "wrong") as intruder,
            pytest.raises(ControlError, match="401 CONTROL_TOKEN_REQUIRED"),
        ):
            intruder.reset()


def test_a_restart_with_state_keeps_every_pat_and_the_target_file(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    with served(tmp_path / "w.json", "--state", str(state)) as world:
        control = ControlClient(world["control_url"], world["control_token"])
        member = next(u["id"] for u in control.users() if "member" in u["roles"].values())
        made = control.issue_token(member, "survives")
        pending = control.request_token_via_ui(member, "waits")
        control.advance_clock(500)
        control.close()
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o600
    text = state.read_text(encoding="utf-8")
    assert made not in text  # hashes only
    assert pending["value"] not in text
    with served(tmp_path / "w2.json", "--state", str(state)) as again:
        # Every credential is the same; the URLs carry a new port each time.
        assert {k: v for k, v in again.items() if not k.endswith("_url")} == {
            k: v for k, v in world.items() if not k.endswith("_url")
        }
        assert _hubs(again, made).status_code == 200
        assert _hubs(again, world["admin_token"]).status_code == 200
        assert _hubs(again, pending["value"]).status_code == 401
        control = ControlClient(again["control_url"], again["control_token"])
        assert [p["id"] for p in control.pending_requests()] == [pending["id"]]
        assert control.snapshot()["clock"]["offset_seconds"] == 500
        control.reset()
        assert _hubs(again, made).status_code == 401
        assert _hubs(again, world["member_token"]).status_code == 200
        control.close()


def test_a_damaged_state_file_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    import subprocess

    from .served import patgate_command

    state = tmp_path / "state.json"
    state.write_text(json.dumps({"format": "something else"}), encoding="utf-8")
    result = subprocess.run(
        [*patgate_command(), "serve", "--port", "0", "--state", str(state)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "is not a patgate serve state file" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_same_seed_gives_the_same_ids(tmp_path: Path) -> None:
    ids = []
    for n, seed in enumerate(("7", "7", "8")):
        with served(tmp_path / f"w{n}.json", "--seed", seed) as world:
            with ControlClient(world["control_url"], world["control_token"]) as control:
                snapshot = control.snapshot()
            ids.append((world["organization_id"], sorted(u["id"] for u in snapshot["users"])))
    assert ids[0] == ids[1]
    assert ids[0] != ids[2]
