"""Scenario items under pytest-xdist against one live target: the same verdicts as a
sequential run, no token left behind, one merged custody line.

Each inner session is a subprocess with the installed plugins (patgate's and xdist's), as a
user runs it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from patgate.basics.resources import scenarios_dir

pytestmark = pytest.mark.slow

_TIMEOUT = 180


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, str]]:
    """``patgate serve`` on a free loopback port; its target file."""
    world_file = tmp_path / "served.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "patgate", "serve", "--port", "0", "--world", str(world_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("patgate serve: target file written"):
                break
        else:
            pytest.fail("patgate serve ended before writing its target file")
        yield json.loads(world_file.read_text(encoding="utf-8"))
    finally:
        process.kill()  # the server this fixture started, by its handle
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def _token_ids(world: dict[str, str]) -> set[str]:
    answer = httpx.get(
        f"{world['control_url']}/snapshot",
        headers={"Authorization": f"Bearer {world['control_token']}"},
        timeout=10,
    )
    answer.raise_for_status()
    return {token["id"] for token in answer.json()["tokens"]}


def _session(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, str]]:
    """An inner pytest run of the ``checks`` folder; its result and each item's verdict."""
    report = pytester.path / f"report-{len(list(pytester.path.glob('report-*')))}.xml"
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--patgate-scenarios",
        "checks",
        "checks",
        f"--junitxml={report}",
        *args,
        timeout=_TIMEOUT,
    )
    verdicts: dict[str, str] = {}
    for case in ElementTree.parse(report).iter("testcase"):  # noqa: S314 - our own file
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = child.tag
        verdicts[case.attrib["name"]] = outcome
    return result, verdicts


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini("[pytest]\n")
    checks = pytester.mkdir("checks")
    for path in scenarios_dir().glob("*.yaml"):
        shutil.copy(path, checks / path.name)
    return pytester


def test_four_workers_give_the_sequential_verdicts_and_leave_no_token(
    project: pytest.Pytester, served: dict[str, str]
) -> None:
    (project.path / "served.json").write_text(json.dumps(served), encoding="utf-8")
    before = _token_ids(served)
    live = ("--patgate-world", "served.json", "--patgate-allow-writes")

    sequential, expected = _session(project, *live)
    assert _token_ids(served) == before
    assert len(expected) == len(list(scenarios_dir().glob("*.yaml")))
    assert set(expected.values()) == {"passed"}, sequential.stdout.str()

    for dist in ("load", "loadgroup"):
        parallel, verdicts = _session(project, *live, "-n", "4", "--dist", dist)
        assert verdicts == expected, parallel.stdout.str()
        assert parallel.ret == pytest.ExitCode.OK
        # The workers' tallies, merged on the controller: one line, nothing left.
        parallel.stdout.fnmatch_lines(["patgate tokens: * created, * deleted, 0 leaked"])
        created = parallel.stdout.str().split("patgate tokens: ", 1)[1].split(" created")[0]
        assert int(created) > 0, "the writing scenarios ran"
        assert _token_ids(served) == before, f"--dist {dist} left tokens on the target"


def test_a_token_a_worker_leaves_behind_fails_the_session(project: pytest.Pytester) -> None:
    from patgate.fake.deployment import Deployment
    from patgate.fake.model import PatRecord, Principal
    from patgate.harness import Fake
    from patgate.transports.loopback_server import LoopbackServer

    class DeleteIsANoOp(Deployment):
        def delete_token(self, principal: Principal, token_id: str) -> PatRecord:
            return self.tokens[token_id]

    for path in (project.path / "checks").glob("*.yaml"):
        if path.name not in ("pat-create.yaml", "token-ok.yaml"):
            path.unlink()
    with LoopbackServer("127.0.0.1", 0) as server:
        fake = Fake(deployment=DeleteIsANoOp(), urls=server.urls)
        server.start(fake.handle)
        (project.path / "w.json").write_text(json.dumps(fake.world), encoding="utf-8")
        result, verdicts = _session(
            project, "--patgate-world", "w.json", "--patgate-allow-writes", "-n", "2"
        )
    assert set(verdicts.values()) == {"passed"}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["patgate tokens: 2 created, 0 deleted, 2 leaked"])


ORPHAN = """\
id: orphan
title: Creates a token as the admin
rules: [PAT-CREATE-FIELDS]
steps:
  - name: create
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    expect:
      - ok: true
"""

DIE_AFTER_THE_CREATE = """
import os

from patgate.runner.custody.ledger import Ledger

_confirm = Ledger.confirm

def _confirm_then_die(self, name, token_id):
    _confirm(self, name, token_id)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os._exit(7)  # the worker dies holding the token: neither scenario nor session cleans

Ledger.confirm = _confirm_then_die
"""


def test_the_controller_deletes_what_a_crashed_worker_left(
    project: pytest.Pytester, served: dict[str, str]
) -> None:
    for path in (project.path / "checks").glob("*.yaml"):
        path.unlink()
    (project.path / "checks" / "orphan.yaml").write_text(ORPHAN, encoding="utf-8")
    project.makeconftest(DIE_AFTER_THE_CREATE)
    (project.path / "served.json").write_text(json.dumps(served), encoding="utf-8")
    before = _token_ids(served)
    result = project.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--patgate-scenarios",
        "checks",
        "checks",
        "--patgate-world",
        "served.json",
        "--patgate-allow-writes",
        "-n",
        "2",
        timeout=_TIMEOUT,
    )
    assert "crashed" in result.stdout.str(), result.stdout.str()
    result.stdout.fnmatch_lines(["patgate tokens: 1 created, 1 deleted, 0 leaked"])
    assert _token_ids(served) == before


def _create_own_tokens(world: dict[str, str], count: int) -> None:
    """The admin's own tokens, made as a user would (not by any run): never to be touched."""
    query = (
        "mutation($input: CreatePersonalAccessTokenInput!) "
        "{ createPersonalAccessToken(input: $input) { id } }"
    )
    for number in range(count):
        variables = {
            "input": {"name": f"their-own-{number}", "organizationId": world["organization_id"]}
        }
        answer = httpx.post(
            world["graphql_url"],
            json={"query": query, "variables": variables},
            headers={"Authorization": f"Bearer {world['admin_token']}"},
            timeout=10,
        )
        answer.raise_for_status()
        assert answer.json()["data"]["createPersonalAccessToken"]["id"]


def test_workers_share_the_room_the_admins_own_tokens_leave(
    project: pytest.Pytester, served: dict[str, str]
) -> None:
    # A live-like target (no control keys) whose admin holds 4 tokens: the world's and 3
    # of their own. The workers together never count slots the admin does not have.
    _create_own_tokens(served, 3)
    before = _token_ids(served)
    live_like = {k: v for k, v in served.items() if k not in ("control_url", "control_token")}
    (project.path / "live.json").write_text(json.dumps(live_like), encoding="utf-8")
    live = ("--patgate-world", "live.json", "--patgate-allow-writes")

    sequential, expected = _session(project, *live)
    assert "failure" not in expected.values(), sequential.stdout.str()
    assert _token_ids(served) == before
    parallel, verdicts = _session(project, *live, "-n", "4")
    assert verdicts == expected, parallel.stdout.str()
    assert _token_ids(served) == before, "nothing left, the admin's own tokens untouched"
