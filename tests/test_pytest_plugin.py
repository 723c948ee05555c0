from __future__ import annotations

import subprocess
import sys

import pytest

USES_BOTH_LIBRARIES = """
import httpx
import requests

def test_both_libraries_reach_the_fake(patgate_fake, patgate_world):
    assert patgate_world == patgate_fake.world
    auth = {"Authorization": "Bearer " + patgate_world["admin_token"]}
    hubs = patgate_world["base_url"] + "/v2/content/hubs"
    assert httpx.get(hubs, headers=auth).status_code == 200
    assert requests.get(hubs, headers=auth, timeout=5).status_code == 200
"""

CREATES_FOUR = """
import httpx
import pytest

CREATE = (
    "mutation($i: CreatePersonalAccessTokenInput!) {"
    " createPersonalAccessToken(input: $i) { id } }"
)

@pytest.mark.parametrize("n", range(COUNT))
def test_each_test_starts_with_one_token(patgate_world, n):
    auth = {"Authorization": "Bearer " + patgate_world["admin_token"]}
    variables = {"i": {"name": f"t{n}", "organizationId": patgate_world["organization_id"]}}
    for _ in range(4):
        body = httpx.post(
            patgate_world["graphql_url"], json={"query": CREATE, "variables": variables},
            headers=auth,
        ).json()
        assert body["data"]["createPersonalAccessToken"], body
"""


IMPORTS_REQUESTS_IN_THE_TEST = """
import sys

import pytest

IMPORTED_BEFORE_ANY_TEST = "requests" in sys.modules


def test_nothing_imported_requests_before_the_tests():
    assert not IMPORTED_BEFORE_ANY_TEST


@pytest.mark.parametrize("n", range(4))
def test_requests_imported_in_the_test_reaches_the_fake(patgate_world, n):
    import requests

    auth = {"Authorization": "Bearer " + patgate_world["admin_token"]}
    hubs = patgate_world["base_url"] + "/v2/content/hubs"
    assert requests.get(hubs, headers=auth, timeout=5).json()["page"]["totalElements"] == 3
"""


def test_the_fixtures_intercept_httpx_and_requests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(USES_BOTH_LIBRARIES)
    pytester.runpytest().assert_outcomes(passed=1)


def test_every_test_gets_fresh_state(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CREATES_FOUR.replace("COUNT", "3"))
    pytester.runpytest().assert_outcomes(passed=3)


def test_the_marker_changes_the_urls(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx
        import pytest

        @pytest.mark.patgate(base_url="http://content.test/api", auth_url="http://auth.test")
        def test_marked(patgate_world):
            assert patgate_world["base_url"] == "http://content.test/api"
            assert patgate_world["graphql_url"] == "http://content.test/api/graphql"
            assert patgate_world["auth_url"] == "http://auth.test"
            auth = {"Authorization": "Bearer " + patgate_world["admin_token"]}
            r = httpx.get("http://content.test/api/v2/content/hubs", headers=auth)
            assert r.status_code == 200

        def test_unmarked(patgate_world):
            assert patgate_world["base_url"] == "https://api.amplience.net"
        """
    )
    pytester.runpytest("--strict-markers").assert_outcomes(passed=2)


def test_ini_options_change_the_urls_and_the_marker_wins(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
        [pytest]
        patgate_base_url = http://ini.test
        patgate_graphql_url = http://ini.test/gql
        patgate_strict = true
        """
    )
    pytester.makepyfile(
        """
        import httpx
        import pytest
        from patgate.wire import UnmatchedRequest

        def test_from_ini(patgate_world):
            assert patgate_world["base_url"] == "http://ini.test"
            assert patgate_world["graphql_url"] == "http://ini.test/gql"
            with pytest.raises(UnmatchedRequest):
                httpx.get("http://127.0.0.1:9/elsewhere")

        @pytest.mark.patgate(base_url="http://marker.test", strict=False)
        def test_marker_wins(patgate_world):
            assert patgate_world["base_url"] == "http://marker.test"
        """
    )
    pytester.runpytest("--strict-config").assert_outcomes(passed=2)


def test_a_marker_with_an_unknown_key_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.patgate(base="http://x.test")
        def test_typo(patgate_fake):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.patgate got unknown keys*'base'*it knows*"])
    assert "_fake_options" not in result.stdout.str()


def test_a_marker_on_a_test_without_the_fixture_is_a_usage_error(
    pytester: pytest.Pytester,
) -> None:
    # strict=True would do nothing here: the test is told so, with the fix.
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.patgate(strict=True)
        def test_forgot_the_fixture():
            pass

        @pytest.mark.patgate(strict=True)
        def test_through_the_world(patgate_world):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        ["*test_forgot_the_fixture*", "*configures the patgate_fake fixture*add patgate_fake*"]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_module_marker_covers_tests_without_the_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        pytestmark = pytest.mark.patgate(strict=True)

        def test_plain():
            pass

        def test_with_fake(patgate_fake):
            assert patgate_fake.strict
        """
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_the_server_fixture_answers_over_a_socket(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import http.client
        import json

        def test_socket(patgate_server):
            world = patgate_server.world
            assert world["base_url"].startswith("http://127.0.0.1:")
            assert not patgate_server.active
            connection = http.client.HTTPConnection(world["base_url"][len("http://"):])
            connection.request("GET", "/v2/content/hubs",
                               headers={"Authorization": "Bearer " + world["admin_token"]})
            response = connection.getresponse()
            body = json.loads(response.read())
            connection.close()
            assert response.status == 200
            assert body["page"]["totalElements"] == 3
        """
    )
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_bug_in_the_fake_fails_the_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx

        def test_bug(patgate_fake, patgate_world):
            def broken(principal, page=0, size=20):
                raise RuntimeError("bug in the fake")
            patgate_fake.deployment.list_hubs = broken
            httpx.get(patgate_world["base_url"] + "/v2/content/hubs",
                      headers={"Authorization": "Bearer " + patgate_world["admin_token"]})
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*RuntimeError: bug in the fake*"])


def test_each_fixture_documents_scope_type_and_default(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--fixtures", "-v")
    text = result.stdout.str()
    for name in ("patgate_fake", "patgate_world", "patgate_server"):
        section = text[text.index(name) :]
        section = section[: section.index("Default:") + 200]
        assert "Scope: function" in section
        assert "Type:" in section


def test_the_marker_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.patgate(auth_url=None, base_url=None*"])


@pytest.mark.slow
def test_xdist_workers_share_no_state(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(CREATES_FOUR.replace("COUNT", "6"))
    result = pytester.runpytest_subprocess("-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=6)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2", "-p", "xdist"]], ids=["alone", "xdist"])
def test_requests_first_imported_inside_a_test_reaches_the_fake(
    pytester: pytest.Pytester, workers: list[str]
) -> None:
    # A fresh interpreter: in this session requests is imported already. The fuzz extra's
    # schemathesis plugin imports requests at start-up itself, so it is left out (a no-op
    # where it is not installed).
    pytester.makepyfile(IMPORTS_REQUESTS_IN_THE_TEST)
    without = ["-p", "no:schemathesis"]
    pytester.runpytest_subprocess(*without, *workers).assert_outcomes(passed=5)


@pytest.mark.slow
def test_importing_the_plugin_and_patgate_stays_light() -> None:
    code = (
        "import sys, patgate, patgate.pytest_plugin, patgate.harness, patgate.wire\n"
        "heavy = [m for m in ('respx', 'responses', 'httpx', 'requests', 'graphql', 'jwt',"
        " 'jsonschema', 'yaml') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    assert _printed_by_a_fresh_interpreter(code) == "[]"


@pytest.mark.slow
def test_a_fake_answering_a_hubs_get_imports_nothing_it_does_not_use() -> None:
    # What the first test using the fake pays: the control API, users' own content paths,
    # the management page, GraphQL, JWT and requests wait until a test uses them.
    code = (
        "import sys, httpx\n"
        "from patgate.harness import Fake\n"
        "with Fake() as fake:\n"
        "    world = fake.world\n"
        "    answer = httpx.get(world['base_url'] + '/v2/content/hubs',\n"
        "        headers={'Authorization': 'Bearer ' + world['admin_token']})\n"
        "    assert answer.status_code == 200, answer.text\n"
        "unused = ('patgate.wire.control_api', 'patgate.wire.user_content', 'patgate.ui',"
        " 'graphql', 'jwt', 'requests')\n"
        "print([m for m in unused if m in sys.modules])\n"
    )
    assert _printed_by_a_fresh_interpreter(code) == "[]"


def _printed_by_a_fresh_interpreter(code: str) -> str:
    # A fresh interpreter: this session has imported everything already.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_marker_with_a_bad_url_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.patgate(base_url="api.example.com")
        def test_bad_url(patgate_fake):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*patgate_fake: base_url must be an absolute http(s) URL*"])
    assert "Traceback" not in result.stdout.str()
    assert "_base" not in result.stdout.str()


def test_the_plugin_names_every_setting_of_the_fake() -> None:
    from patgate import pytest_plugin
    from patgate.fake.settings import SETTINGS

    assert tuple(SETTINGS) == pytest_plugin._SETTING_KEYS


def test_the_marker_sets_the_deployment_and_its_faults(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import httpx
        import pytest
        import requests

        CREATE = ("mutation($i: CreatePersonalAccessTokenInput!) {"
                  " createPersonalAccessToken(input: $i) { id } }")

        @pytest.mark.patgate(
            expires_in=60, session_expires_in=120, max_tokens_per_user=1, pat_prefix="acme_",
            seed=4, faults=[{"endpoint": "hubs", "status": 503, "count": 1}],
        )
        def test_marked(patgate_world):
            assert patgate_world["pat_prefix"] == "acme_"
            token = httpx.post(patgate_world["auth_url"] + "/oauth/token", data={
                "grant_type": "client_credentials", "client_id": patgate_world["client_id"],
                "client_secret": patgate_world["client_secret"]}).json()
            assert (token["expires_in"], token["session_expires_in"]) == (60, 120)
            auth = {"Authorization": "Bearer " + patgate_world["admin_token"]}
            hubs = patgate_world["base_url"] + "/v2/content/hubs"
            assert requests.get(hubs, headers=auth, timeout=5).status_code == 503
            assert httpx.get(hubs, headers=auth).status_code == 200
            variables = {"i": {"name": "x", "organizationId": patgate_world["organization_id"]}}
            body = httpx.post(patgate_world["graphql_url"], headers=auth,
                              json={"query": CREATE, "variables": variables}).json()
            assert body["errors"][0]["extensions"]["code"] == "LIMIT_REACHED"

        def test_unmarked(patgate_world):
            assert patgate_world["pat_prefix"] == "amp_pat_"
        """
    )
    pytester.runpytest("--strict-markers").assert_outcomes(passed=2)


def test_ini_options_set_the_deployment_faults_and_rate_limit(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        """
        [pytest]
        patgate_expires_in = 30
        patgate_pat_prefix = ini_
        patgate_rate_limit = true
        patgate_faults =
            {"endpoint": "token", "status": 429, "retry_after": 7, "count": 1}
        """
    )
    pytester.makepyfile(
        """
        import httpx
        import pytest

        def test_from_ini(patgate_fake, patgate_world):
            assert patgate_world["pat_prefix"] == "ini_"
            assert patgate_fake.deployment.faults.rate_limit
            form = {"grant_type": "client_credentials", "client_id": patgate_world["client_id"],
                    "client_secret": patgate_world["client_secret"]}
            refused = httpx.post(patgate_world["auth_url"] + "/oauth/token", data=form)
            assert refused.status_code == 429
            assert refused.headers["Retry-After"] == "7"
            token = httpx.post(patgate_world["auth_url"] + "/oauth/token", data=form).json()
            assert token["expires_in"] == 30

        @pytest.mark.patgate(pat_prefix="marker_", faults=[], rate_limit=False)
        def test_marker_wins(patgate_fake, patgate_world):
            assert patgate_world["pat_prefix"] == "marker_"
            assert not patgate_fake.deployment.faults.rate_limit
            assert len(patgate_fake.deployment.faults) == 0
        """
    )
    pytester.runpytest("--strict-config").assert_outcomes(passed=2)


@pytest.mark.parametrize(
    ("ini", "marker", "message"),
    [
        ("patgate_expires_in = soon", "", "*ini option patgate_expires_in must be an integer*"),
        ("patgate_faults = {oops", "", "*patgate_faults: not a JSON object*"),
        ("", "expires_in=0", "*patgate_fake: expires_in must be at least 1, got 0*"),
        ("", "faults=[{'endpoint': 'nowhere'}]", "*patgate_fake: *endpoint*"),
        ("", "faults={'endpoint': 'hubs'}", "*faults must be a list of rules*"),
    ],
)
def test_a_bad_setting_or_fault_is_a_clear_error(
    pytester: pytest.Pytester, ini: str, marker: str, message: str
) -> None:
    pytester.makeini(f"[pytest]\n{ini}\n")
    pytester.makepyfile(
        f"""
        import pytest

        @pytest.mark.patgate({marker})
        def test_bad(patgate_fake):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])
    assert "Traceback" not in result.stdout.str()


def test_the_factory_makes_several_fakes_with_their_own_options(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        """
        import httpx
        import pytest
        from patgate.errors import UsageError

        def test_two_regions(patgate_fakes):
            eu = patgate_fakes(base_url="https://eu.api.test", auth_url="https://eu.auth.test")
            us = patgate_fakes(base_url="https://us.api.test", auth_url="https://us.auth.test",
                               pat_prefix="us_")
            for fake in (eu, us):
                w = fake.world
                auth = {"Authorization": "Bearer " + w["admin_token"]}
                hubs = httpx.get(w["base_url"] + "/v2/content/hubs", headers=auth)
                assert hubs.status_code == 200
            assert us.world["admin_token"].startswith("us_")
            assert len(eu.request_log) == len(us.request_log) == 1
            with pytest.raises(UsageError, match="already active"):
                patgate_fakes(base_url="https://eu.api.test")

        def test_they_are_stopped_after_the_test(patgate_fakes):
            assert patgate_fakes().active  # the default hosts are free again
        """
    )
    pytester.runpytest().assert_outcomes(passed=2)
