"""The shared argument types refuse bad values with a message that names them."""

from __future__ import annotations

import argparse

import pytest

from patgate.commands.arguments import seconds, whole_number


@pytest.mark.parametrize(
    ("text", "message"),
    [("x", "not a port number: 'x'"), ("-1", "must be 0 to 65535, got -1"), ("65536", "65535")],
)
def test_whole_numbers_out_of_range_are_refused(text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        whole_number(0, 65535, what="a port number")(text)


def test_whole_numbers_in_range_pass() -> None:
    assert whole_number(1)("25") == 25


@pytest.mark.parametrize("text", ["abc", "nan", "inf", "-1", "0"])
def test_a_timeout_must_be_a_positive_finite_number(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="seconds"):
        seconds(zero_allowed=False)(text)


def test_a_wait_may_be_zero() -> None:
    assert seconds(zero_allowed=True)("0") == 0.0
    assert seconds(zero_allowed=False)("0.5") == 0.5
