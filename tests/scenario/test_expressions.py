"""Templates and expressions."""

from __future__ import annotations

import pytest

from patgate.scenario.expressions import (
    MAX_BUILT,
    ExpressionError,
    evaluate,
    expression_names,
    substitute,
    template_names,
)

VALUES = {"held": 3, "token": "amp_pat_abc.def", "prefix": "amp_pat_", "ids": ["a", "b"]}


def test_a_whole_reference_keeps_its_type() -> None:
    assert substitute("${held}", VALUES.__getitem__) == 3
    assert substitute("${ids}", VALUES.__getitem__) == ["a", "b"]


def test_references_inside_text_become_text() -> None:
    assert substitute("held ${held} of 5", VALUES.__getitem__) == "held 3 of 5"


def test_a_doubled_dollar_writes_a_literal_reference() -> None:
    assert substitute("$${held} is ${held}", VALUES.__getitem__) == "${held} is 3"
    assert list(template_names("$${held} and ${token}")) == ["token"]


def test_substitution_goes_into_mappings_and_lists() -> None:
    assert substitute({"a": ["${held}", "x"]}, VALUES.__getitem__) == {"a": [3, "x"]}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("5 - held", 2),
        ("max(0, 5 - held * 2)", 0),
        ("held < 5 and held >= 3", True),
        ("not held == 3", False),
        ("is_pat(token, prefix)", True),
        ("is_pat('nope', prefix)", False),
        ("len(ids) + 1", 3),
        ("startswith(prefix, 'amp_')", True),
        ("startswith(prefix, 'ghp_')", False),
        ("startswith(held, '3')", False),
        (7, 7),
    ],
)
def test_expressions_evaluate(text: str | int, value: object) -> None:
    assert evaluate(text, VALUES.__getitem__) == value


def test_expression_names_leave_out_functions() -> None:
    assert expression_names("max(0, 5 - held) + len(ids)") == {"held", "ids"}


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "held.real",
        "ids[0]",
        "[held]",
        "lambda: 1",
        "open('x')",
        "held if 1 else 2",
    ],
)
def test_anything_outside_the_language_is_refused(text: str) -> None:
    with pytest.raises(ExpressionError):
        expression_names(text)


def test_a_type_error_while_evaluating_is_an_expression_error() -> None:
    with pytest.raises(ExpressionError, match="cannot evaluate"):
        evaluate("token - 1", VALUES.__getitem__)


@pytest.mark.parametrize(
    "text",
    [
        "'a' * 100001",
        "100001 * 'a'",
        "ids * 60000",
        "('ab' * 50000) + 'c'",
        # Hostile: each step stays small, the product does not; refused before it is built.
        "'x' * 1000 * 1000 * 1000 * 1000",
        "'x' * 99999999999999999999",
    ],
)
def test_an_expression_cannot_build_past_the_limit(text: str) -> None:
    with pytest.raises(ExpressionError, match=rf"over the limit of {MAX_BUILT} \(MAX_BUILT\)"):
        evaluate(text, VALUES.__getitem__)


def test_building_up_to_the_limit_works() -> None:
    assert len(evaluate(f"'a' * {MAX_BUILT}", VALUES.__getitem__)) == MAX_BUILT
    assert evaluate("ids * 2 + ids", VALUES.__getitem__) == ["a", "b"] * 3


def test_percent_does_not_format_strings() -> None:
    # '%999999999d' would build a gigabyte of spaces.
    with pytest.raises(ExpressionError, match="does not format strings"):
        evaluate("'%999999999d' % 1", VALUES.__getitem__)
    assert evaluate("7 % held", VALUES.__getitem__) == 1
