"""The secrets a fake hands out (API clients' secrets, the control token, the page's key)
can be passed as a separate command-line argument: none starts with ``-``, which the
vendor's CLI (yargs) would read as options, as README's ``dc-cli ... --clientSecret
"$CLIENT_SECRET"`` does."""

from __future__ import annotations

import itertools
import secrets

import pytest

import patgate
from patgate.fake import pat_format
from patgate.fake.pat_format import new_secret


def test_new_secrets_never_start_with_a_dash_and_keep_their_length() -> None:
    made = [new_secret() for _ in range(3_000)]  # about 47 would start with "-" otherwise
    assert not [value for value in made if value.startswith("-")]
    assert {len(value) for value in made} == {43}
    assert len(set(made)) == len(made)


def test_every_secret_a_fake_hands_out_comes_without_a_leading_dash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every other draw of the system's randomness starts with "-", so a secret taken
    # straight from it would show one.
    real = secrets.token_urlsafe
    draws = itertools.count()

    def dashed(nbytes: int | None = None) -> str:
        value = real(nbytes)
        return "-" + value[1:] if next(draws) % 2 == 0 else value

    monkeypatch.setattr(pat_format.secrets, "token_urlsafe", dashed)
    with patgate.Fake() as fake:
        world = fake.world
        _, added_secret = fake.deployment.add_client(
            fake.default_world.admin_id, world["organization_id"]
        )
        handed_out = {
            "client_secret": world["client_secret"],
            "control_token": world["control_token"],
            "ui key": fake.ui_secret,
            "added client's secret": added_secret,
        }
    assert next(draws) > len(handed_out)  # the dashed draws were refused, not missed
    assert {name: value for name, value in handed_out.items() if value.startswith("-")} == {}
