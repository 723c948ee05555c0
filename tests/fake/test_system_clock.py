"""``clock="system"``: the fake reads ``time.time()``, so time-machine moves it together with
the code under test; moving the fake's own clock is then a clear error."""

from __future__ import annotations

from datetime import datetime, timezone

import httpx
import pytest
import time_machine

import patgate
from patgate.errors import InvalidRequest, UsageError

START = datetime(2031, 5, 1, 12, 0, tzinfo=timezone.utc)


def _client_token(world: dict[str, str]) -> dict[str, str]:
    answer = httpx.post(
        world["auth_url"] + "/oauth/token",
        data={
            "grant_type": "client_credentials",
            "client_id": world["client_id"],
            "client_secret": world["client_secret"],
        },
    )
    return {"Authorization": "Bearer " + answer.json()["access_token"]}


def test_time_machine_moves_the_fake_and_the_client_token_expires_with_it() -> None:
    with time_machine.travel(START, tick=False) as traveller, patgate.Fake(clock="system") as fake:
        assert fake.clock.now() == START
        assert fake.clock_now() == START
        hubs = fake.world["base_url"] + "/v2/content/hubs"
        auth = _client_token(fake.world)
        traveller.shift(299)
        assert httpx.get(hubs, headers=auth).status_code == 200
        traveller.shift(1)
        assert httpx.get(hubs, headers=auth).status_code == 401
        # A PAT's lastUsedDate is the travelled time too.
        pat = {"Authorization": "Bearer " + fake.world["admin_token"]}
        listed = httpx.post(
            fake.world["graphql_url"],
            json={"query": "{ viewer { personalAccessTokens { lastUsedDate } } }"},
            headers=pat,
        ).json()["data"]["viewer"]["personalAccessTokens"]
        assert listed[0]["lastUsedDate"] == "2031-05-01T12:05:00.000Z"


def test_the_fake_s_own_clock_follows_travel_plus_its_own_offset() -> None:
    with time_machine.travel(START, tick=False) as traveller, patgate.Fake() as fake:
        fake.advance_clock(60)
        traveller.shift(10)
        assert fake.clock.now().timestamp() == START.timestamp() + 70


def test_moving_a_system_clock_is_a_clear_error_in_python_and_over_http() -> None:
    with patgate.Fake(clock="system") as fake:
        with pytest.raises(InvalidRequest, match="move time with time-machine or freezegun"):
            fake.advance_clock(10)
        answer = httpx.post(
            fake.world["control_url"] + "/clock/advance",
            json={"seconds": 10},
            headers={"Authorization": "Bearer " + fake.control_token},
        )
        assert answer.status_code == 400
        assert "clock='system'" in answer.text
        fake.reset()  # a reset puts no offset on it
        assert fake.clock.offset == 0


@pytest.mark.parametrize("value", ["wall", "", 1])
def test_a_bad_clock_is_refused(value: object) -> None:
    with pytest.raises(UsageError, match="clock must be 'fake' or 'system'"):
        patgate.Fake(clock=value)


def test_the_marker_s_clock_follows_time_machine(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        from datetime import datetime, timezone

        import httpx
        import pytest
        import time_machine

        START = datetime(2031, 5, 1, tzinfo=timezone.utc)

        @pytest.fixture
        def traveller():
            with time_machine.travel(START, tick=False) as traveller:
                yield traveller

        @pytest.mark.patgate(clock="system", expires_in=60)
        def test_expiry(traveller, patgate_fake, patgate_world):
            assert patgate_fake.clock.now() == START
            token = httpx.post(patgate_world["auth_url"] + "/oauth/token", data={
                "grant_type": "client_credentials", "client_id": patgate_world["client_id"],
                "client_secret": patgate_world["client_secret"]}).json()["access_token"]
            hubs = patgate_world["base_url"] + "/v2/content/hubs"
            auth = {"Authorization": "Bearer " + token}
            assert httpx.get(hubs, headers=auth).status_code == 200
            traveller.shift(60)
            assert httpx.get(hubs, headers=auth).status_code == 401

        @pytest.mark.patgate(clock="sundial")
        def test_bad(patgate_fake):
            pass
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*patgate_fake: clock must be 'fake' or 'system', got 'sundial'*"])
