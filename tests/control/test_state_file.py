"""The state of a fake as JSON and back, and the state file's atomic writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from patgate.commands.serve_state import open_state, write_atomically
from patgate.errors import UsageError
from patgate.fake.deployment import Deployment
from patgate.fake.state import export_state, load_state
from patgate.harness import Fake
from patgate.wire.urls import FakeUrls


def test_a_state_round_trip_keeps_tokens_working_and_holds_no_secret() -> None:
    with Fake() as fake:
        value = fake.issue_token(fake.default_world.member_id, "kept")
        state = json.loads(json.dumps(export_state(fake.deployment)))
    assert value not in json.dumps(state)
    assert fake.world["client_secret"] not in json.dumps(state)
    other = Deployment()
    load_state(other, state)
    assert export_state(other) == state
    principal = other.authenticate(value)
    assert principal.user_id == fake.default_world.member_id


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.update(version=99), "not a patgate state of version 1"),
        (lambda s: s.update(pat_prefix="acme_"), "PAT prefix 'acme_'"),
        (lambda s: s["tokens"].append({"id": "x"}), "the state is damaged: KeyError"),
    ],
)
def test_a_wrong_state_is_refused_and_changes_nothing(change: object, message: str) -> None:
    fake = Fake()
    state = export_state(fake.deployment)
    change(state)  # type: ignore[operator]
    before = export_state(fake.deployment)
    with pytest.raises(UsageError, match=message):
        load_state(fake.deployment, state)
    assert export_state(fake.deployment) == before


def test_a_crash_mid_write_leaves_the_last_good_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.json"
    write_atomically(path, "good\n")

    def crash(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="No space"):
        write_atomically(path, "half written")
    assert path.read_text(encoding="utf-8") == "good\n"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]  # no temporary left


def test_the_state_restores_the_fake_with_its_reset_point(tmp_path: Path) -> None:
    urls = FakeUrls.same_origin("http://127.0.0.1:9")
    path = tmp_path / "state.json"
    first = open_state(path, urls, seed=0, log_size=None)
    fake = first.fake
    value = fake.issue_token(fake.default_world.admin_id, "kept")
    fake.remove_user(fake.default_world.member_id)
    first.close()
    restored = open_state(path, urls, seed=0, log_size=None)
    again = restored.fake
    # Everything but the page's key, which each run makes anew.
    assert again.world | {"ui_url": ""} == fake.world | {"ui_url": ""}
    assert again.ui_secret != fake.ui_secret
    with again:
        hubs = httpx.get(
            again.world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": f"Bearer {value}"},
        )
        member = httpx.get(
            again.world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": f"Bearer {again.world['member_token']}"},
        )
        again.reset()
        after_reset = httpx.get(
            again.world["base_url"] + "/v2/content/hubs",
            headers={"Authorization": f"Bearer {again.world['member_token']}"},
        )
    restored.close()
    assert (hubs.status_code, member.status_code, after_reset.status_code) == (200, 403, 200)
