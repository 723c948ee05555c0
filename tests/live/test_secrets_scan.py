"""The artifact gate: canary secrets planted in a target, scenarios that fail with them in
the expectation and the answer, every reporter and pytest's JUnit XML; then every file
produced and all output are scanned. Zero hits are allowed.

The target is ``patgate serve`` in another process. Its own client secret and tokens are
secrets too; two more canaries are planted as tokens the server does not know: one shaped
like a PAT, one opaque (only redaction by value can catch that one).
"""

from __future__ import annotations

import re
import secrets
from pathlib import Path

import pytest

from .support import Served

pytestmark = pytest.mark.slow

CANARIES = """\
id: canary-client-secret
title: Fails with the client secret expected and an access token in the answer
rules: [TOKEN-OK]
steps:
  - name: ask for a token
    token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
    expect:
      - {path: access_token, equals: "${client_secret}"}
---
id: canary-access-token
title: Fails with an access token expected
rules: [CONTENT-CLIENT-TOKEN]
steps:
  - name: ask for a token
    token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
    capture:
      access_token: access_token
  - name: list hubs with it
    hubs: true
    bearer: ${access_token}
    expect:
      - {path: page.size, equals: "${access_token}"}
---
id: canary-created-pat
title: Fails with a freshly created PAT expected and present
rules: [PAT-CREATE-FIELDS]
steps:
  - name: create a token
    graphql: create_token
    args: {name: "${new_name}"}
    bearer: ${admin_token}
    capture:
      token: data.createPersonalAccessToken.token
      created: {path: data.createPersonalAccessToken.id, append: true}
  - name: look at its owner with it
    graphql: viewer
    bearer: ${token}
    expect:
      - {path: data.viewer.id, equals: "${token}"}
      - {path: data.viewer.email, equals: "${admin_token}"}
      - {present: "${token}"}
cleanup:
  - for_each: created
    graphql: delete_token
    args: {id: "${item}"}
    bearer: ${admin_token}
---
id: canary-planted
title: Fails with the planted canaries as bearers, in a URL and expected
rules: [AUTH-INVALID-TOKEN]
steps:
  - name: the PAT-shaped canary
    hubs: true
    bearer: ${member_token}
    expect:
      - {path: errors, equals: "${member_token}"}
  - name: the opaque canary in a query string
    rule: AUTH-INVALID-TOKEN
    http:
      method: GET
      url: "${base_url}/v2/content/hubs?access_token=${unpermitted_token}"
    expect:
      - {status: 200}
      - {path: errors, equals: "${unpermitted_token}"}
"""


def _canaries() -> dict[str, str]:
    return {
        "member_token": f"amp_pat_{secrets.token_urlsafe(16)}.{secrets.token_urlsafe(32)}",
        "unpermitted_token": f"canary-{secrets.token_hex(20)}",
    }


_SHAPES = (
    re.compile(r"amp_pat_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"),
    re.compile(r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
)


def _hits(secret_values: list[str], texts: dict[str, str]) -> list[str]:
    found = []
    for where, text in texts.items():
        for value in secret_values:
            if value in text:
                found.append(f"{where}: a planted or target secret")
        for shape in _SHAPES:
            for match in shape.finditer(text):
                found.append(f"{where}: {match.group()[:12]}... (a token shape)")
    return found


def _produced(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): path.read_text(encoding="utf-8", errors="replace")
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        and path.suffix in (".json", ".xml", ".html", ".jsonl", ".txt")
        and path.name not in ("w.json", "canary-world.json")
    }


def test_no_secret_reaches_any_output_or_file(served: Served) -> None:
    planted = _canaries()
    world = served.write_world(served.folder / "canary-world.json", **planted)
    secret_values = [
        *planted.values(),
        *(served.world[key] for key in ("client_secret", "admin_token", "removed_token")),
    ]
    scenarios = served.folder / "checks"
    scenarios.mkdir()
    (scenarios / "canaries.yaml").write_text(CANARIES, encoding="utf-8")
    out = served.folder / "out"

    run = served.run(
        "run",
        "--world",
        str(world),
        "--allow-writes",
        "--ledger",
        str(out / "ledger.jsonl"),
        "--scenarios",
        str(scenarios),
        "--report",
        f"json:{out / 'run.json'}",
        "--report",
        f"junit:{out / 'run.xml'}",
        "--report",
        f"html:{out / 'run.html'}",
    )
    assert run.returncode == 1, run.stdout + run.stderr
    progress = [line for line in run.stdout.splitlines() if line.startswith("failed ")]
    assert sum(" canary-" in line for line in progress) == 4
    session = served.run_python(
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-l",
        "--tb=long",
        "-o",
        "junit_logging=all",
        "-o",
        "log_level=DEBUG",
        f"--junitxml={out / 'pytest.xml'}",
        "--patgate-scenarios",
        "checks",
        "--patgate-world",
        str(world),
        "--patgate-allow-writes",
        "--patgate-ledger",
        str(out / "pytest-ledger.jsonl"),
        "checks",
    )
    assert session.returncode == 1, session.stdout + session.stderr
    assert "4 failed" in session.stdout

    texts = {
        "run stdout": run.stdout,
        "run stderr": run.stderr,
        "pytest stdout": session.stdout,
        "pytest stderr": session.stderr,
        **_produced(out),
    }
    assert set(texts) >= {"run.json", "run.xml", "run.html", "pytest.xml", "ledger.jsonl"}
    assert _hits(secret_values, texts) == []
    assert "[REDACTED]" in texts["run.json"], "the failures were reported, redacted"
    assert "[REDACTED]" in texts["pytest.xml"]
    assert served.run_tokens() == []
