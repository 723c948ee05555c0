"""The profile wherever the fake is: the marker, the ini option, ``patgate serve --profile``
and the control API."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx
import pytest

# Imported here, before pytester's in-process runs: a run's new modules are dropped after
# it, and PyYAML's C loader cannot be imported twice in one process.
import yaml  # noqa: F401

from patgate.control_client import ControlClient
from tests.control.served import patgate_command, served

OBJECT_PROFILE = """\
profile_version: 1
delete_result:
  shape: object
  object_type: TokenDeleted
  fields: {id: token_id, deleted: "true"}
listing_order: created_descending
"""

USES_THE_PROFILE = """
import httpx
import pytest

INTROSPECT = '{ __type(name: "Mutation") { fields { name type { name } } } }'


def delete_type(world):
    answer = httpx.post(
        world["graphql_url"],
        json={"query": INTROSPECT},
        headers={"Authorization": "Bearer " + world["admin_token"]},
    ).json()
    fields = answer["data"]["__type"]["fields"]
    return next(f["type"]["name"] for f in fields if f["name"] == "deletePersonalAccessToken")


def test_from_ini(patgate_world, patgate_fake):
    assert delete_type(patgate_world) == "TokenDeleted"
    assert patgate_fake.profile.listing_order == "created_descending"


@pytest.mark.patgate(profile={"profile_version": 1, "listing_order": "name_ascending"})
def test_marker_wins(patgate_world, patgate_fake):
    assert delete_type(patgate_world) == "Boolean"
    assert patgate_fake.profile.listing_order == "name_ascending"


@pytest.mark.patgate(profile="profiles/other.yaml")
def test_marker_path_from_the_rootdir(patgate_fake):
    assert patgate_fake.profile.listing_order == "name_ascending"
"""


def test_the_ini_option_and_the_marker_choose_the_profile(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", **{"profiles/object": OBJECT_PROFILE})
    pytester.makefile(
        ".yaml", **{"profiles/other": "profile_version: 1\nlisting_order: name_ascending\n"}
    )
    pytester.makeini("[pytest]\npatgate_profile = profiles/object.yaml\n")
    pytester.makepyfile(USES_THE_PROFILE)
    pytester.runpytest("--strict-config").assert_outcomes(passed=3)


def test_a_bad_profile_in_the_ini_option_fails_cleanly(pytester: pytest.Pytester) -> None:
    pytester.makefile(".yaml", bad="profile_version: 1\ntoken_cap: 6\n")
    pytester.makeini("[pytest]\npatgate_profile = bad.yaml\n")
    pytester.makepyfile("def test_uses_it(patgate_fake):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ini option patgate_profile: profile: *bad.yaml:2: token_cap: 6 contradicts a "
            'documented rule*section 8: "PATs per user: Up to 5"*'
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "During handling" not in result.stdout.str()


def test_a_bad_profile_in_the_marker_fails_cleanly(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.patgate(profile={"profile_version": 1, "listing_ordr": "x"})
        def test_marker(patgate_fake):
            pass
        """
    )
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*patgate_fake: profile: unknown field 'listing_ordr'; did you mean 'listing_order'?*"]
    )


@pytest.mark.slow
def test_serve_with_a_profile_answers_by_it_and_the_control_api_shows_it(
    tmp_path: Path,
) -> None:
    profile = tmp_path / "profile.yaml"
    profile.write_text(OBJECT_PROFILE, encoding="utf-8")
    with served(tmp_path / "w.json", "--profile", str(profile)) as world:
        with ControlClient(world["control_url"], world["control_token"]) as control:
            document = control.profile_document()
        assert document["delete_result"]["object_type"] == "TokenDeleted"
        assert document["listing_order"] == "created_descending"
        assert document["pages"] == {  # the default's
            "default_size": 20,
            "maximum_size": 100,
            "over_maximum": "refused",
            "links": ["self", "first", "prev", "next", "last"],
        }
        headers = {"Authorization": f"Bearer {world['admin_token']}"}
        created = httpx.post(
            world["graphql_url"],
            json={
                "query": "mutation($o: ID!) { createPersonalAccessToken("
                'input: {name: "served", organizationId: $o}) { id } }',
                "variables": {"o": world["organization_id"]},
            },
            headers=headers,
        ).json()["data"]["createPersonalAccessToken"]
        deleted = httpx.post(
            world["graphql_url"],
            json={
                "query": "mutation($i: ID!) { deletePersonalAccessToken(input: {id: $i}) "
                "{ id deleted } }",
                "variables": {"i": created["id"]},
            },
            headers=headers,
        ).json()
        assert deleted == {
            "data": {"deletePersonalAccessToken": {"id": created["id"], "deleted": True}}
        }


@pytest.mark.slow
def test_serve_with_a_default_profile_shows_the_shipped_one(tmp_path: Path) -> None:
    from patgate.fake.profile import default_profile

    with (
        served(tmp_path / "w.json") as world,
        ControlClient(world["control_url"], world["control_token"]) as control,
    ):
        assert control.profile_document() == default_profile().as_document()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("profile_version: 1\nmasked_token:\n  visible_characters: all\n", ":3: masked_token"),
        ("profile_version: 1\nlisting_ordr: name_ascending\n", ":2: unknown field"),
        ("profile_version: 1\nadmin_only_creation: false\n", ":2: admin_only_creation: False"),
    ],
)
def test_serve_with_a_bad_profile_is_a_usage_error_naming_file_and_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    profile = tmp_path / "bad.yaml"
    profile.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [*patgate_command(), "serve", "--port", "0", "--profile", str(profile)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert f"patgate serve: error: profile: {profile}{expected}" in done.stderr
    assert "Traceback" not in done.stderr
    assert "listening" not in done.stdout


@pytest.mark.slow
def test_serve_with_state_takes_the_profile_of_each_start(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yaml"
    profile.write_text(OBJECT_PROFILE, encoding="utf-8")
    state = tmp_path / "state.json"
    with (
        served(tmp_path / "w.json", "--state", str(state), "--profile", str(profile)) as world,
        ControlClient(world["control_url"], world["control_token"]) as control,
    ):
        assert control.profile_document()["listing_order"] == "created_descending"
    with (
        served(tmp_path / "w2.json", "--state", str(state), "--profile", str(profile)) as world,
        ControlClient(world["control_url"], world["control_token"]) as control,
    ):
        assert control.profile_document()["delete_result"]["shape"] == "object"
    with (
        served(tmp_path / "w3.json", "--state", str(state)) as world,
        ControlClient(world["control_url"], world["control_token"]) as control,
    ):
        assert control.profile_document()["listing_order"] == "created_ascending"
