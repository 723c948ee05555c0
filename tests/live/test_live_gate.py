"""A target lost mid-run, as CI sees it: the served fake is killed while ``patgate run``
works; the run stops handing out scenarios, exits 3, writes every report asked for, and
prints a cleanup command that works as printed once the target is back."""

from __future__ import annotations

import contextlib
import json
import shlex
import socket
import subprocess
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft202012Validator

from patgate.basics.resources import specs_dir

from .support import Served, patgate_command, stop, wait_for

pytestmark = pytest.mark.slow

_CREATE_THEN_POLL = """\
id: create-then-poll
title: Creates a token, then keeps asking who the admin is
rules: [PAT-CREATE-FIELDS]
steps:
  - name: create a token as the admin
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    expect:
      - ok: true
    capture:
      created: {path: data.createPersonalAccessToken.id, append: true}
{polls}cleanup:
  - name: delete the token
    for_each: created
    graphql: delete_token
    args: {id: "${item}"}
    bearer: ${admin_token}
---
id: after-it
title: Comes after the scenario the target is lost in
rules: [PAT-OWNER-LOOKUP]
steps:
  - graphql: viewer
    bearer: ${admin_token}
    expect:
      - ok: true
"""
# A step runs at most 1,000 times: enough polling steps keep the scenario busy until the
# server is killed under it.
_POLL = """\
  - name: keep asking {number}
    repeat: 1000
    graphql: viewer
    bearer: ${{admin_token}}
    expect:
      - ok: true
"""
CREATE_THEN_POLL = _CREATE_THEN_POLL.replace(
    "{polls}", "".join(_POLL.format(number=n) for n in range(1, 101))
)


class Forwarder:
    """A TCP relay on a loopback port to ``target``: closed to lose the target, opened
    again on the same port to bring it back."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = 0
        self._listener: socket.socket | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def open(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target, timeout=10)
            with self._lock:
                self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        """Refuse new connections and cut the open ones: the target is gone."""
        if self._listener is not None:
            # shutdown wakes the thread blocked in accept(); close alone would not.
            with contextlib.suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._sockets.clear()


@contextlib.contextmanager
def forwarded(served: Served) -> Iterator[tuple[Forwarder, Path]]:
    """A relay to ``served`` and a target file that reaches the fake through it."""
    address = urlsplit(served.url)
    relay = Forwarder((address.hostname or "127.0.0.1", address.port or 80))
    relay.open()
    try:
        through = f"http://127.0.0.1:{relay.port}"
        world = served.world
        changed = {
            key: value.replace(served.url, through) if isinstance(value, str) else value
            for key, value in world.items()
        }
        path = served.folder / "through.json"
        path.write_text(json.dumps(changed), encoding="utf-8")
        yield relay, path
    finally:
        relay.close()


def _start_run(served: Served, world: Path, folder: Path) -> subprocess.Popen[str]:
    scenarios = folder / "lose.yaml"
    scenarios.write_text(CREATE_THEN_POLL, encoding="utf-8")
    return served.start(
        "run",
        "--world",
        world.name,
        "--allow-writes",
        "--concurrency",
        "1",
        "--connect-timeout",
        "2",
        "--read-timeout",
        "3",
        "--ledger",
        "ledger.jsonl",
        "--scenarios",
        scenarios.name,
        "--report",
        "json:out/r.json",
        "--report",
        "junit:out/r.xml",
        "--report",
        "html:out/r.html",
    )


def test_a_server_killed_mid_run_ends_with_exit_3_and_every_report(served: Served) -> None:
    process = _start_run(served, served.world_file, served.folder)
    try:
        wait_for(served.folder / "ledger.jsonl", '"created"')
        stop(served.process)  # the fake this test started, by its handle
        out, err = process.communicate(timeout=90)
    finally:
        stop(process)
    assert process.returncode == 3, out + err
    assert "Traceback" not in err
    assert "exit 3: the target became unreachable mid-run" in out
    assert "patgate cleanup --world w.json --ledger ledger.jsonl" in err
    document = json.loads((served.folder / "out" / "r.json").read_text(encoding="utf-8"))
    assert (document["exit_code"], document["unreachable"], document["lost"]) == (3, True, True)
    schema = json.loads((specs_dir() / "report.schema.json").read_text(encoding="utf-8"))
    assert [e.message for e in Draft202012Validator(schema).iter_errors(document)] == []
    scenarios = {item["id"]: item for item in document["scenarios"]}
    assert "target became unreachable while it ran" in scenarios["create-then-poll"]["reason"]
    assert scenarios["after-it"]["reason"].startswith("not run: target became unreachable")
    rules = {rule["id"]: rule for rule in document["rules"]}
    assert "target became unreachable" in rules["PAT-OWNER-LOOKUP"]["reason"]
    # The create's expectation held before the loss: its rule is credited.
    assert rules["PAT-CREATE-FIELDS"]["outcome"] == "passed"
    root = ET.parse(served.folder / "out" / "r.xml").getroot()  # noqa: S314 (our own report)
    assert root.get("errors") == "1"
    assert (served.folder / "out" / "r.html").exists()


def test_the_cleanup_command_printed_after_a_loss_works_as_printed(served: Served) -> None:
    with forwarded(served) as (relay, world):
        process = _start_run(served, world, served.folder)
        try:
            wait_for(served.folder / "ledger.jsonl", '"created"')
            relay.close()
            out, err = process.communicate(timeout=90)
        finally:
            stop(process)
        assert process.returncode == 3, out + err
        assert len(served.run_tokens()) == 1, "the token the run made is still there"
        (hint,) = [line for line in err.splitlines() if "patgate cleanup" in line]
        command = hint.split("`")[1]
        assert command == "patgate cleanup --world through.json --ledger ledger.jsonl"
        relay.open()  # the target is back, on the same address
        argv = shlex.split(command)
        done = subprocess.run(
            [*patgate_command(), *argv[1:]],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            cwd=served.folder,
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 deleted" in done.stdout
    assert served.run_tokens() == []
