"""Hostile clocks and state files: refused with a clear error, never a traceback or a 500.

The clock stays within the years 1970 to 9998 (a move beyond is a 400 on the control API and
an ``InvalidRequest`` from Python); ``patgate serve --state`` checks its file before loading
it (types, ranges, NaN and infinite numbers, nesting, size) and exits 2 naming the problem;
a second server on the same state stops at once; neither ``--world`` nor ``--state`` is
written through a symbolic link; temporary files a crash left behind are removed at start.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from patgate import Fake
from patgate.cli import main
from patgate.commands import serve_state
from patgate.commands.serve_state import open_state
from patgate.errors import InvalidRequest
from patgate.wire.urls import FakeUrls

URLS = FakeUrls.same_origin("http://127.0.0.1:9")
TEN_YEARS = 10 * 365 * 86400


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


def test_the_control_api_refuses_a_clock_beyond_year_9998_with_400() -> None:
    with Fake() as fake:
        control = fake.world["control_url"] + "/clock/advance"
        auth = {"Authorization": f"Bearer {fake.control_token}"}
        fake.advance_clock(7900 * 365.25 * 86400)  # the control API moves ten years a call
        statuses = []
        for _ in range(20):
            answer = httpx.post(control, json={"seconds": TEN_YEARS}, headers=auth)
            statuses.append(answer.status_code)
            if answer.status_code != 200:
                break
        assert statuses[-1] == 400
        assert "9998" in answer.json()["error"]["message"]
        # The clock stayed where it was, and every endpoint still answers.
        assert fake.clock_now().year <= 9998
        hubs = httpx.get(
            fake.urls.hubs_url, headers={"Authorization": f"Bearer {fake.world['admin_token']}"}
        )
        assert hubs.status_code == 200
        token = httpx.post(
            fake.world["auth_url"] + "/oauth/token",
            data={
                "client_id": fake.world["client_id"],
                "client_secret": fake.world["client_secret"],
                "grant_type": "client_credentials",
            },
        )
        assert token.status_code == 200


@pytest.mark.parametrize("seconds", [1e300, float("inf"), float("nan"), -1.0])
def test_the_python_api_refuses_a_clock_move_out_of_range(seconds: float) -> None:
    fake = Fake()
    before = fake.clock_now()
    with pytest.raises(InvalidRequest, match="clock"):
        fake.advance_clock(seconds)
    assert fake.clock_now() - before < __import__("datetime").timedelta(seconds=60)


# -- the state file --------------------------------------------------------------------------


def _saved_state(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    open_state(path, URLS, seed=0, log_size=None).close()
    return path


def _edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document), encoding="utf-8")


def _replace_text(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


HOSTILE: list[tuple[str, Callable[[Path], None], str]] = [
    (
        "nan-offset",
        lambda p: _replace_text(p, '"clock_offset":0.0', '"clock_offset":NaN'),
        "NaN is not a number",
    ),
    (
        "infinite-offset",
        lambda p: _replace_text(p, '"clock_offset":0.0', '"clock_offset":Infinity'),
        "Infinity is not a number",
    ),
    (
        "huge-offset",
        lambda p: _replace_text(p, '"clock_offset":0.0', '"clock_offset":1e300'),
        "clock_offset",
    ),
    (
        "seed-1e999",
        lambda p: _replace_text(p, '"seed":0', '"seed":1e999'),
        "beyond the range of a number",
    ),
    ("seed-string", lambda p: _edit(p, lambda d: d.update(seed="zero")), "seed"),
    ("seed-negative", lambda p: _edit(p, lambda d: d.update(seed=-1)), "seed"),
    (
        "seed-5000-digits",
        lambda p: _replace_text(p, '"seed":0', '"seed":' + "9" * 5000),
        "not valid",
    ),
    (
        "deep-nesting",
        lambda p: p.write_text(
            '{"format":"patgate-serve-state","world":' + "[" * 100_000 + "]" * 100_000 + "}"
        ),
        "nested deeper than 32 levels",
    ),
    (
        "nesting-in-settings",
        lambda p: _edit(
            p,
            lambda d: d["current"]["hubs"][0].update(
                settings=json.loads('{"a":' * 40 + "1" + "}" * 40)
            ),
        ),
        "nested deeper than 32",
    ),
    ("tokens-not-a-list", lambda p: _edit(p, lambda d: d["current"].update(tokens={})), "tokens"),
    (
        "name-not-a-string",
        lambda p: _edit(p, lambda d: d["current"]["tokens"][0].update(name=["x"])),
        "current.tokens[0].name",
    ),
    (
        "bad-status",
        lambda p: _edit(p, lambda d: d["current"]["tokens"][0].update(status="revoked")),
        "status",
    ),
    (
        "bad-hash",
        lambda p: _edit(p, lambda d: d["current"]["tokens"][0].update(secret_hash="zz")),
        "secret_hash",
    ),
    (
        "bad-date",
        lambda p: _edit(p, lambda d: d["current"]["tokens"][0].update(created_date="yesterday")),
        "Invalid isoformat",
    ),
    (
        "bad-random-state",
        lambda p: _edit(p, lambda d: d["current"].update(ids=[3, [1, 2], None])),
        "current.ids",
    ),
    ("not-json", lambda p: p.write_text("{oops"), "not valid"),
    ("not-an-object", lambda p: p.write_text("[]"), "not a patgate serve state file"),
    ("empty", lambda p: p.write_text(""), "not valid"),
]


@pytest.mark.parametrize(
    ("damage", "message"), [(d, m) for _, d, m in HOSTILE], ids=[n for n, _, _ in HOSTILE]
)
def test_a_hostile_state_file_is_refused_with_exit_2_and_a_clear_error(
    tmp_path: Path, damage: Callable[[Path], None], message: str
) -> None:
    path = _saved_state(tmp_path)
    damage(path)
    before = path.read_bytes()
    code, output = _serve("--state", str(path))
    assert code == 2, output
    assert message in output, output
    assert "Traceback" not in output
    assert path.read_bytes() == before  # the damaged file is kept for its owner to look at


def test_a_state_file_above_the_size_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _saved_state(tmp_path)
    monkeypatch.setattr(serve_state, "MAX_STATE_BYTES", 1000)
    code, output = _serve("--state", str(path))
    assert code == 2
    assert "larger than" in output


def test_a_second_server_on_the_same_state_stops_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    first = open_state(path, URLS, seed=0, log_size=None)
    try:
        code, output = _serve("--state", str(path))
        assert code == 2
        assert "another patgate serve uses the state file" in output
    finally:
        first.close()
    # Once the first is gone, the state opens again.
    open_state(path, URLS, seed=0, log_size=None).close()


@pytest.mark.parametrize("flag", ["--world", "--state"])
def test_no_file_is_written_through_a_symbolic_link(tmp_path: Path, flag: str) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n", encoding="utf-8")
    target.chmod(0o644)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    code, output = _serve(flag, str(link))
    assert code == 2
    assert "symbolic link" in output
    assert target.read_text(encoding="utf-8") == "keep me\n"
    assert target.stat().st_mode & 0o777 == 0o644


def test_stale_temporary_files_are_removed_at_start(tmp_path: Path) -> None:
    path = _saved_state(tmp_path)
    stale = [tmp_path / ".state.json.a1b2c3d4", tmp_path / ".state.json.x_y_z_12.tmp"]
    for file in stale:
        file.write_bytes(b"\0" * 100_000)  # what a kill during a write leaves
    unrelated = tmp_path / ".state.json.keep-me"
    unrelated.write_text("not ours", encoding="utf-8")
    open_state(path, URLS, seed=0, log_size=None).close()
    assert not any(file.exists() for file in stale)
    assert unrelated.exists()


def test_a_torn_last_journal_line_is_dropped_and_the_rest_replayed(tmp_path: Path) -> None:
    path = _saved_state(tmp_path)
    persistence = open_state(path, URLS, seed=0, log_size=None)
    fake = persistence.fake
    value = fake.issue_token(fake.default_world.admin_id, "journaled")
    persistence.commit()
    journal = path.with_name(path.name + ".journal")
    with journal.open("ab") as handle:
        handle.write(b'{"seq":99,"tokens":{"x":{"id"')  # a write cut short by a kill
    persistence._state_lock.release()  # as a kill would: nothing else is written
    again = open_state(path, URLS, seed=0, log_size=None)
    try:
        assert again.fake.deployment.authenticate(value).user_id == fake.default_world.admin_id
    finally:
        again.close()


def test_a_damaged_journal_line_before_the_last_is_refused(tmp_path: Path) -> None:
    path = _saved_state(tmp_path)
    journal = path.with_name(path.name + ".journal")
    journal.write_text('{"seq":1,"clock_offset":NaN}\n{"seq":2,"clock_offset":1}\n')
    code, output = _serve("--state", str(path))
    assert code == 2
    assert f"{journal}:1: not valid JSON" in output


def test_a_state_path_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    code, output = _serve("--state", str(folder))
    assert code == 2
    assert "cannot read" in output


def test_a_journal_planted_as_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    path = _saved_state(tmp_path)
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n", encoding="utf-8")
    path.with_name(path.name + ".journal").symlink_to(target)
    code, output = _serve("--state", str(path))
    assert code == 2
    assert "symbolic link" in output
    assert target.read_text(encoding="utf-8") == "keep me\n"
