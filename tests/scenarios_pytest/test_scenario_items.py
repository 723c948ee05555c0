"""Scenario files as pytest items, driven through pytester.

The inner sessions run with ``-p no:patgate`` and a conftest that calls
``patgate.plugin.scenario_items`` directly, as the plugin does.
"""

from __future__ import annotations

import json
import shutil
import signal

import pytest

# pytester forgets the modules an inner session imported; PyYAML's C extension does not
# survive being imported a second time, so it is imported once here, outside the sessions.
import yaml  # noqa: F401

from patgate.basics.resources import scenarios_dir
from patgate.fake.deployment import Deployment
from patgate.fake.model import PatRecord, Principal
from patgate.harness import Fake

CONFTEST = """
from patgate.plugin import scenario_items
def pytest_addoption(parser):
    scenario_items.add_options(parser)

def pytest_collect_file(file_path, parent):
    return scenario_items.collect_file(file_path, parent)
"""

FAILING = """\
id: wrong-status
title: Expects the wrong status
rules: [TOKEN-OK, TOKEN-LIFETIME]
steps:
  - name: ask for a token
    token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
    expect:
      - {path: expires_in, equals: 3, rule: TOKEN-LIFETIME}
      - status: 201
"""

WARNING = FAILING.replace("id: wrong-status", "id: lifetime-warning").replace(
    "      - status: 201\n", "      - status: 200\n"
)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.mkdir("checks")
    return pytester


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:patgate", "-p", "no:cacheprovider", *args)


def test_the_built_in_scenarios_run_as_items_against_the_fake(
    project: pytest.Pytester,
) -> None:
    for path in scenarios_dir().glob("*.yaml"):
        shutil.copy(path, project.path / "checks" / path.name)
    result = _run(project, "--patgate-scenarios", "checks", "checks", "-v")
    count = len(list(scenarios_dir().glob("*.yaml")))
    result.assert_outcomes(passed=count)
    result.stdout.fnmatch_lines(["*checks/pat-cap.yaml::pat-cap PASSED*"])


def test_the_ini_option_names_the_scenario_folders(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\npatgate_scenarios = checks\n")
    (project.path / "checks" / "w.yaml").write_text(WARNING, encoding="utf-8")
    (project.path / "other.yaml").write_text("not: a scenario\n", encoding="utf-8")
    result = _run(project, ".", "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*checks/w.yaml::lifetime-warning PASSED*"])


LIFETIME_600 = """\
id: lifetime-600
title: The client token lives 600 s
rules: [TOKEN-OK]
steps:
  - token:
      client_id: ${client_id}
      client_secret: ${client_secret}
      grant_type: client_credentials
    expect:
      - status: 200
      - {path: expires_in, equals: 600}
"""
"""Passes only where the client token lives 600 s: the profile's choice, not the default."""


def test_the_built_in_scenarios_pass_on_a_fake_of_another_profile(
    project: pytest.Pytester,
) -> None:
    from benchmarks.profile_start import PROFILE

    (project.path / "other.yaml").write_text(PROFILE, encoding="utf-8")
    for path in scenarios_dir().glob("*.yaml"):
        shutil.copy(path, project.path / "checks" / path.name)
    (project.path / "checks" / "lifetime.yaml").write_text(LIFETIME_600, encoding="utf-8")
    result = _run(
        project, "--patgate-scenarios", "checks", "checks", "--patgate-profile", "other.yaml"
    )
    result.assert_outcomes(passed=len(list(scenarios_dir().glob("*.yaml"))) + 1)
    default = _run(project, "--patgate-scenarios", "checks", "checks/lifetime.yaml")
    default.assert_outcomes(failed=1)


def test_the_ini_option_patgate_profile_shapes_the_items_fake_too(
    pytester: pytest.Pytester,
) -> None:
    # With the plugin loaded, the profile the fixture's fakes use is the items' too.
    from benchmarks.profile_start import PROFILE

    pytester.makeini("[pytest]\npatgate_scenarios = checks\npatgate_profile = other.yaml\n")
    (pytester.path / "other.yaml").write_text(PROFILE, encoding="utf-8")
    pytester.mkdir("checks")
    (pytester.path / "checks" / "lifetime.yaml").write_text(LIFETIME_600, encoding="utf-8")
    pytester.runpytest("-p", "no:cacheprovider", "checks").assert_outcomes(passed=1)


def test_a_bad_profile_fails_the_items_naming_its_file(project: pytest.Pytester) -> None:
    (project.path / "bad.yaml").write_text("profile_version: 1\npat_name: 7\n", encoding="utf-8")
    (project.path / "checks" / "warn.yaml").write_text(WARNING, encoding="utf-8")
    result = _run(
        project, "--patgate-scenarios", "checks", "checks", "--patgate-profile", "bad.yaml"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*bad.yaml:2*pat_name*"])
    assert "Traceback" not in result.stdout.str()


def test_a_failure_shows_the_rule_the_step_the_expectation_and_the_answer(
    project: pytest.Pytester,
) -> None:
    (project.path / "checks" / "bad.yaml").write_text(FAILING, encoding="utf-8")
    result = _run(project, "--patgate-scenarios", "checks", "checks")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*scenario wrong-status (*checks/bad.yaml:1): Expects the wrong status",
            "TOKEN-OK (gate) failed",
            "  step:     ask for a token",
            "  problem:  expected status 201, got 200",
            "  expected: 201",
            "  actual:   HTTP 200: *",
            "*patgate advisory*",
            "TOKEN-LIFETIME (advisory) failed",
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "eyJ" not in result.stdout.str(), "the access token is redacted"


def test_an_advisory_failure_passes_unless_strict(project: pytest.Pytester) -> None:
    (project.path / "checks" / "warn.yaml").write_text(WARNING, encoding="utf-8")
    _run(project, "--patgate-scenarios", "checks", "checks").assert_outcomes(passed=1)
    strict = _run(project, "--patgate-scenarios", "checks", "checks", "--patgate-strict-advisory")
    strict.assert_outcomes(failed=1)
    strict.stdout.fnmatch_lines(["TOKEN-LIFETIME (advisory) failed"])


def test_a_bad_file_is_a_collection_error_naming_file_and_line(project: pytest.Pytester) -> None:
    (project.path / "checks" / "broken.yaml").write_text(
        "id: x\ntitle: t\nrules: [TOKEN-OK]\nsteps:\n  - hubs: true\n    expect:\n"
        "      - stauts: 200\n",
        encoding="utf-8",
    )
    result = _run(project, "--patgate-scenarios", "checks", "checks")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*checks/broken.yaml:7: steps[[]0[]].expect[[]0[]].stauts: unknown*"]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_bad_world_file_is_reported_as_its_message(project: pytest.Pytester) -> None:
    (project.path / "checks" / "warn.yaml").write_text(WARNING, encoding="utf-8")
    result = _run(
        project, "--patgate-scenarios", "checks", "--patgate-world", "nope.json", "checks"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["patgate: the world file *nope.json: cannot read: *"])
    assert "Traceback" not in result.stdout.str()
    assert "raise UsageError" not in result.stdout.str()


def test_a_profile_with_a_live_target_is_reported_as_a_usage_error(
    project: pytest.Pytester,
) -> None:
    from benchmarks.profile_start import PROFILE

    (project.path / "other.yaml").write_text(PROFILE, encoding="utf-8")
    (project.path / "w.json").write_text(json.dumps(Fake().world), encoding="utf-8")
    (project.path / "checks" / "warn.yaml").write_text(WARNING, encoding="utf-8")
    result = _run(
        project,
        *("--patgate-scenarios", "checks", "checks"),
        *("--patgate-world", "w.json", "--patgate-profile", "other.yaml"),
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*--patgate-profile shapes the embedded fake; *live target*"])
    assert "Traceback" not in result.stdout.str()


def test_items_run_against_a_live_target_from_a_world_file(project: pytest.Pytester) -> None:
    from patgate.transports.loopback_server import LoopbackServer

    with LoopbackServer("127.0.0.1", 0) as server:
        fake = Fake(urls=server.urls)
        server.start(fake.handle)
        world = project.path / "w.json"
        world.write_text(json.dumps(fake.world), encoding="utf-8")
        for name in ("token-ok.yaml", "pat-cap.yaml", "pat-approval.yaml"):
            shutil.copy(scenarios_dir() / name, project.path / "checks" / name)
        result = _run(
            project, "--patgate-scenarios", "checks", "checks", "--patgate-world", "w.json", "-rs"
        )
        result.assert_outcomes(passed=1, skipped=2)
        # The world file names the fake's control API on loopback: approval is not skipped
        # for control, only (as the cap) for writing without --allow-writes.
        result.stdout.no_fnmatch_line("*needs control of the deployment*")
        result.stdout.fnmatch_lines(["*writes to the deployment; run with --allow-writes*"])
        allowed = _run(
            project,
            "--patgate-scenarios",
            "checks",
            "checks",
            "--patgate-world",
            "w.json",
            "--patgate-allow-writes",
        )
        allowed.assert_outcomes(passed=3)


def test_a_target_lost_mid_session_fails_the_items_instead_of_skipping_them(
    project: pytest.Pytester,
) -> None:
    import socket

    from patgate.transports.loopback_server import LoopbackServer

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        gone = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with LoopbackServer("127.0.0.1", 0) as server:
        fake = Fake(urls=server.urls)
        server.start(fake.handle)
        # The token endpoint answers; the content API's host no longer does.
        world = {**fake.world, "base_url": gone, "graphql_url": f"{gone}/graphql"}
        (project.path / "w.json").write_text(json.dumps(world), encoding="utf-8")
        # Items run in file order: the one that reaches the token endpoint comes first.
        for order, name in enumerate(("token-ok", "content-client-token", "content-pat")):
            shutil.copy(scenarios_dir() / f"{name}.yaml", project.path / "checks" / f"{order}.yaml")
        result = _run(
            project, "--patgate-scenarios", "checks", "checks", "--patgate-world", "w.json"
        )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*target became unreachable while it ran*"])
    result.stdout.fnmatch_lines(["*not run: target became unreachable*"])


class _DeleteIsANoOp(Deployment):
    def delete_token(self, principal: Principal, token_id: str) -> PatRecord:
        return self.tokens[token_id]


def test_a_token_left_behind_fails_the_session(project: pytest.Pytester) -> None:
    from patgate.transports.loopback_server import LoopbackServer

    before = signal.getsignal(signal.SIGTERM)
    with LoopbackServer("127.0.0.1", 0) as server:
        fake = Fake(deployment=_DeleteIsANoOp(), urls=server.urls)
        server.start(fake.handle)
        (project.path / "w.json").write_text(json.dumps(fake.world), encoding="utf-8")
        shutil.copy(scenarios_dir() / "pat-create.yaml", project.path / "checks")
        result = _run(
            project,
            "--patgate-scenarios",
            "checks",
            "checks",
            "--patgate-world",
            "w.json",
            "--patgate-allow-writes",
        )
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["patgate tokens: 2 created, 0 deleted, 2 leaked"])
    ledger = project.path / ".patgate" / "ledger.jsonl"
    assert ledger.is_file(), "a live session keeps its ledger where pytest was started"
    assert signal.getsignal(signal.SIGTERM) == before, "the SIGTERM handler is put back"


def test_an_unexpected_error_is_shown_with_the_secrets_redacted(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from patgate.runner.execution.scenario_execution import ScenarioExecution

    # The inner session runs in this process and patches the class; put it back afterwards.
    monkeypatch.setattr(ScenarioExecution, "run", ScenarioExecution.run)
    project.makeconftest(
        CONFTEST
        + """
from patgate.runner.execution.scenario_execution import ScenarioExecution

def _explode(self):
    secret = self.context.config.text("client_secret")
    # Next to this conftest, whatever the current directory is.
    (__import__("pathlib").Path(__file__).parent / "secret.txt").write_text(secret)
    raise RuntimeError(f"the deployment sent {secret}")

ScenarioExecution.run = _explode
"""
    )
    shutil.copy(scenarios_dir() / "token-ok.yaml", project.path / "checks")
    result = _run(project, "--patgate-scenarios", "checks", "checks", "-l", "--junitxml", "out.xml")
    result.assert_outcomes(failed=1)
    secret = (project.path / "secret.txt").read_text()
    output = result.stdout.str() + result.stderr.str()
    assert "RuntimeError: the deployment sent [REDACTED]" in output
    assert secret not in output
    assert secret not in (project.path / "out.xml").read_text()
