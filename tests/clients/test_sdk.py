"""The vendor's JS management SDK (pinned in tests/clients/vendor.py) against the fake on a socket.

Each test runs ``sdk_session.js``: all hubs page by page, one hub, each listing the hub links
to, and a record of each kind, with client credentials or a PAT.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from patgate.fake.content import KINDS
from patgate.harness import Fake
from tests.clients.vendor import NODE_MODULES

pytestmark = pytest.mark.usefixtures("vendor_packages")

SCRIPT = Path(__file__).with_name("sdk_session.js")


def run_session(fake: Fake, **credentials: str) -> dict[str, Any]:
    """Run the SDK session with ``pat=`` or ``client_id=`` + ``client_secret=``."""
    world = fake.world
    env = {
        "PATH": os.environ.get("PATH", ""),
        "NODE_PATH": str(NODE_MODULES),
        "PATGATE_API_URL": world["base_url"] + "/v2/content",
        "PATGATE_AUTH_URL": world["auth_url"],
        **{f"PATGATE_{name.upper()}": value for name, value in credentials.items()},
    }
    done = subprocess.run(
        ["node", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _check_full_session(fake: Fake, result: dict[str, Any]) -> None:
    assert result["ok"], result
    organization = fake.world["organization_id"]
    hubs = [hub for hub in fake.deployment.hubs if hub.organization_id == organization]
    assert result["hubIds"] == [hub.id for hub in hubs]
    assert result["pages"] == 2  # three hubs, two per page
    first = hubs[0]
    assert result["hub"] == {"id": first.id, "name": first.name}
    for kind in KINDS:
        seeded = fake.deployment.content.listing(kind, first.id)
        assert [item["id"] for item in result["related"][kind]] == [r.id for r in seeded], kind
    repositories = result["related"]["content-repositories"]
    assert [repo["name"] for repo in repositories] == ["content", "slots"]
    assert result["singles"]["content-repository"] == "content"
    assert result["singles"]["workflow-state"] == "Todo"
    assert result["singles"]["webhook"] == "Publish notifications"
    assert result["singles"]["event"] == "Spring launch"


def test_a_session_with_client_credentials(served: Fake) -> None:
    world = served.world
    result = run_session(served, client_id=world["client_id"], client_secret=world["client_secret"])
    _check_full_session(served, result)


def test_a_session_with_a_pat(served: Fake) -> None:
    _check_full_session(served, run_session(served, pat=served.world["admin_token"]))


def test_a_wrong_secret_is_refused(served: Fake) -> None:
    result = run_session(served, client_id=served.world["client_id"], client_secret="wrong")
    # The token endpoint refuses the secret; the SDK goes on without a token and the
    # content API refuses that call in turn.
    assert (result["ok"], result["status"]) == (False, 401), result
    tokens = [entry.status for entry in served.request_log if entry.url.endswith("/oauth/token")]
    assert tokens
    assert set(tokens) == {400}
    assert all(entry.status != 200 for entry in served.request_log)


def test_a_removed_users_pat_is_forbidden(served: Fake) -> None:
    result = run_session(served, pat=served.world["removed_token"])
    assert (result["ok"], result["status"]) == (False, 403)


def test_a_pending_pat_is_unauthorized(served: Fake) -> None:
    world = served.default_world
    pending = served.deployment.request_token_via_ui(
        world.member_id, world.organization_id, "awaiting approval"
    )
    result = run_session(served, pat=pending.value)
    assert (result["ok"], result["status"]) == (False, 401)


README_HEADING = "## The vendor's SDK and CLI against `patgate serve`"


def readme_block(language: str) -> str:
    """The first ``language`` block under the README's section on the vendor's clients."""
    readme = (Path(__file__).resolve().parents[2] / "docs/tutorials/serve.md").read_text("utf-8")
    section = readme.split(README_HEADING, 1)[1].split("\n## ", 1)[0]
    found = re.search(rf"^```{language}\n(.*?)^```$", section, re.M | re.S)
    assert found, f"no {language} block under {README_HEADING!r}"
    return found.group(1)


def test_the_readme_sdk_example_runs(served: Fake, tmp_path: Path) -> None:
    (tmp_path / "w.json").write_text(json.dumps(served.world), encoding="utf-8")
    (tmp_path / "example.js").write_text(readme_block("js"), encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", ""), "NODE_PATH": str(NODE_MODULES)}
    done = subprocess.run(
        ["node", "example.js"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "'content', 'slots'" in done.stdout


def test_the_readme_cli_example_names_commands_the_cli_tests_run() -> None:
    block = readme_block("sh")
    assert "API_URL=" in block
    assert "AUTH_URL=" in block
    assert "dc-cli content-repository list" in block
