"""The pytest plugin reads ``profile`` from ``[tool.patgate]`` (the ini option wins), for the
fixture's fakes and for scenario items, relative to the pyproject.toml."""

from __future__ import annotations

import pytest

# pytester forgets the modules an inner session imported; PyYAML's C extension does not
# survive being imported a second time, so it is imported once here, outside the sessions.
import yaml  # noqa: F401

NAME_ORDER = "profile_version: 1\nlisting_order: name_ascending\n"
NEWEST_FIRST = "profile_version: 1\nlisting_order: created_descending\n"

READS_THE_ORDER = """
def test_order(patgate_fake):
    assert patgate_fake.profile.listing_order == "ORDER"
"""

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


def _project(pytester: pytest.Pytester, table: str, order: str) -> None:
    pytester.makefile(".yaml", **{"profiles/names": NAME_ORDER, "profiles/newest": NEWEST_FIRST})
    pytester.makepyprojecttoml(table)
    pytester.makepyfile(READS_THE_ORDER.replace("ORDER", order))


def test_the_fixture_takes_the_profile_from_tool_patgate(pytester: pytest.Pytester) -> None:
    _project(pytester, '[tool.patgate]\nprofile = "profiles/names.yaml"\n', "name_ascending")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_without_the_table_the_fixture_has_the_default_profile(
    pytester: pytest.Pytester,
) -> None:
    # The twin of the test above: the same test fails without the table.
    _project(pytester, '[tool.other]\nprofile = "profiles/names.yaml"\n', "name_ascending")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(failed=1)


def test_the_run_table_counts_and_the_ini_option_wins(pytester: pytest.Pytester) -> None:
    table = '[tool.patgate.run]\nprofile = "profiles/names.yaml"\n'
    _project(pytester, table, "name_ascending")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    ini = '[tool.pytest.ini_options]\npatgate_profile = "profiles/newest.yaml"\n'
    _project(pytester, ini + table, "created_descending")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_bad_table_fails_the_test_naming_the_file_and_key(pytester: pytest.Pytester) -> None:
    _project(pytester, '[tool.patgate]\nprofil = "profiles/names.yaml"\n', "name_ascending")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*pyproject.toml:2: [[]tool.patgate[]]: unknown key 'profil'; did you mean 'profile'?"]
    )
    assert "Traceback" not in result.stdout.str()


def test_scenario_items_take_the_profile_relative_to_the_pyproject(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(
        ".yaml", **{"conf/long": "profile_version: 1\nclient_token: {expires_in: 600}\n"}
    )
    pytester.mkdir("checks")
    (pytester.path / "checks" / "lifetime.yaml").write_text(LIFETIME_600, encoding="utf-8")
    ini = '[tool.pytest.ini_options]\npatgate_scenarios = ["checks"]\n'
    pytester.makepyprojecttoml(ini)
    pytester.runpytest("-p", "no:cacheprovider", "checks").assert_outcomes(failed=1)
    pytester.makepyprojecttoml(ini + '[tool.patgate]\nprofile = "conf/long.yaml"\n')
    pytester.runpytest("-p", "no:cacheprovider", "checks").assert_outcomes(passed=1)
