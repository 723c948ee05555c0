"""What the control API accepts, ``patgate serve --state`` loads again; hostile ``--faults``
files and journal lines are refused with exit 2, never a hang or a traceback; a journal whose
records point at users or organizations that are gone answers no 500. (security K91)"""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from patgate.cli import main
from patgate.commands.serve_state import open_state
from patgate.wire.control_api import MAX_DESCRIPTION, MAX_TEXT
from patgate.wire.urls import FakeUrls

URLS = FakeUrls.same_origin("http://127.0.0.1:9")


def _serve(*args: str) -> tuple[int, str]:
    """``patgate serve`` in this process, stopped at once if it ever starts listening."""
    out, err = io.StringIO(), io.StringIO()
    stopper = threading.Timer(3.0, lambda: os.kill(os.getpid(), 15))
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        stopper.start()
        try:
            code = main(["serve", "--port", "0", *args])
        finally:
            stopper.cancel()
    return code, out.getvalue() + err.getvalue()


TOO_LONG = [
    ("/users", {"name": "n" * (MAX_TEXT + 1)}, "name"),
    ("/users", {"name": "n", "email": "e" * (MAX_TEXT + 1)}, "email"),
    ("/hubs", {"name": "h" * (MAX_TEXT + 1)}, "name"),
    ("/hubs", {"name": "h", "label": "l" * (MAX_TEXT + 1)}, "label"),
    ("/hubs", {"name": "h", "description": "d" * (MAX_DESCRIPTION + 1)}, "description"),
    ("/users/remove", {"user_id": "u" * 900_000}, "user_id"),
]


@pytest.mark.parametrize(("path", "body", "field"), TOO_LONG, ids=[f for _, _, f in TOO_LONG])
def test_the_control_api_refuses_text_longer_than_a_state_file_keeps(
    tmp_path: Path, path: str, body: dict[str, Any], field: str
) -> None:
    persistence = open_state(tmp_path / "state.json", URLS, seed=0, log_size=None)
    try:
        fake = persistence.fake
        with httpx.Client(transport=fake.httpx_transport()) as client:
            answer = client.post(
                fake.world["control_url"] + path,
                json=body,
                headers={"Authorization": f"Bearer {fake.control_token}"},
            )
        assert answer.status_code == 400
        assert answer.json()["error"]["message"].startswith(f"{field} is longer than")
    finally:
        persistence.close()


def test_everything_the_control_api_accepts_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    persistence = open_state(path, URLS, seed=0, log_size=None)
    fake = persistence.fake
    longest = "\u202e\ud800" + "n" * (MAX_TEXT - 2)  # a bidi override, a lone surrogate
    auth = {"Authorization": f"Bearer {fake.control_token}"}
    with httpx.Client(transport=fake.httpx_transport(), headers=auth) as client:
        control = fake.world["control_url"]
        body = json.dumps({"name": longest}, ensure_ascii=True)
        json_type = {"Content-Type": "application/json"}
        user = client.post(control + "/users", content=body, headers=json_type)
        assert user.status_code == 201, user.text
        hub = {"name": "h" * MAX_TEXT, "label": "l" * MAX_TEXT}
        hub["description"] = "d" * MAX_DESCRIPTION
        assert client.post(control + "/hubs", json=hub).status_code == 201
    persistence.commit()
    persistence.close()
    again = open_state(path, URLS, seed=0, log_size=None)
    try:
        assert again.fake.deployment.user(user.json()["id"]).name == longest
    finally:
        again.close()


FAULT_FILES = [
    ("a status of 101", '[{"status": 101}]', "status must be a whole number from 200 to 599"),
    ("a latency of a year", '[{"latency": 31536000}]', "latency must be a number from 0 to 60"),
    ("a NaN latency", '[{"latency": NaN}]', "latency must be a number"),
    (
        "a body nested 100,000 deep",
        '[{"status": 500, "body": ' + "[" * 100_000,
        "faults.json:1: nested deeper than 64 levels",
    ),
    ("a 5,000-digit status", '[{"status": ' + "9" * 5000 + "}]", "faults.json:1: not valid JSON"),
    ("bytes that are not UTF-8", '[{"operation": "\udcff"}]', "faults.json:1: not UTF-8 text"),
]


@pytest.mark.parametrize(
    ("content", "message"), [(c, m) for _, c, m in FAULT_FILES], ids=[n for n, _, _ in FAULT_FILES]
)
def test_a_hostile_faults_file_exits_2_naming_the_problem(
    tmp_path: Path, content: str, message: str
) -> None:
    faults = tmp_path / "faults.json"
    faults.write_bytes(content.encode("utf-8", "surrogateescape"))
    code, output = _serve("--faults", str(faults))
    assert code == 2, output
    assert message in output
    assert "Traceback" not in output


def test_a_faults_file_that_never_ends_is_refused_at_its_size_limit() -> None:
    code, output = _serve("--faults", "/dev/zero")
    assert code == 2, output
    assert "larger than 16 MiB" in output


def _journal(path: Path, entry: dict[str, Any]) -> None:
    path.with_name(path.name + ".journal").write_text(json.dumps(entry) + "\n")


def test_a_journal_pointing_at_what_is_gone_answers_no_500(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    open_state(path, URLS, seed=0, log_size=None).close()
    document = json.loads(path.read_text())
    current = document["current"]
    token, admin = current["tokens"][0], current["users"][0]
    orphan = {**token, "id": "orphan", "user_id": "nobody", "organization_id": "nowhere"}
    _journal(
        path,
        {
            "seq": 1,
            "tokens": {"orphan": {**orphan, "id_segment": "A" * 22}},
            "users": {admin["id"]: {**admin, "memberships": {"nowhere": "admin"}}},
            "organizations": {current["organizations"][0]["id"]: None},
        },
    )
    persistence = open_state(path, URLS, seed=0, log_size=None)
    try:
        fake = persistence.fake
        world = fake.world
        with httpx.Client(transport=fake.httpx_transport()) as client:
            client.get(world["ui_url"])
            statuses = [
                client.get(
                    world["base_url"] + "/v2/content/hubs",
                    headers={"Authorization": f"Bearer {world['admin_token']}"},
                ).status_code,
                client.post(
                    world["graphql_url"],
                    json={"query": "{ viewer { id } }"},
                    headers={"Authorization": f"Bearer {world['admin_token']}"},
                ).status_code,
                client.get(
                    world["control_url"] + "/snapshot",
                    headers={"Authorization": f"Bearer {fake.control_token}"},
                ).status_code,
                client.get(fake.urls.ui_url + "/").status_code,
                client.get(fake.urls.ui_url + "/inspector").status_code,
            ]
        assert all(status < 500 for status in statuses), statuses
    finally:
        persistence.close()
