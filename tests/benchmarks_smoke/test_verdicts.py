"""A goal is met or missed only on rounds that agree; otherwise the verdict is "unsteady"."""

from __future__ import annotations

import pytest
from benchmarks.timing import Goal, Result, compare, judge, stats

AT_MOST = Goal("ratio", "<=", 1.5, "fake / bare")
AT_LEAST = Goal("ratio", ">=", 0.7, "patgate / bare")


@pytest.mark.parametrize(
    ("goal", "values", "verdict"),
    [
        (AT_MOST, [1.20, 1.22, 1.25, 1.21, 1.23], "met"),
        (AT_MOST, [1.70, 1.72, 1.69, 1.75, 1.71], "missed"),
        # One wild round does not move the middle half: still a verdict.
        (AT_MOST, [1.20, 1.22, 1.25, 1.21, 9.0], "met"),
        # The middle half straddles the goal: the median alone would flip from run to run.
        (AT_MOST, [1.40, 1.45, 1.55, 1.60, 1.48], "unsteady"),
        # All on one side but spread wider than the stated share of the goal.
        (AT_LEAST, [0.2, 0.3, 0.45, 0.55, 0.66], "unsteady"),
        (AT_LEAST, [0.75, 0.76, 0.78, 0.74, 0.77], "met"),
    ],
)
def test_a_verdict_follows_the_middle_half_of_the_rounds(
    goal: Goal, values: list[float], verdict: str
) -> None:
    assert judge(goal, stats(values)) == verdict


def test_a_difference_goal_is_judged_on_per_round_differences() -> None:
    # Each round's pair moves together; the medians' difference alone would hide that.
    with_plugin = [400.0, 520.0, 410.0, 610.0, 405.0]
    without = [398.0, 516.0, 407.0, 606.0, 401.0]
    result = compare(
        name="x",
        title="x",
        unit="ms",
        a_label="on",
        a=with_plugin,
        b_label="off",
        b=without,
        ratio_label="on / off",
        goal=Goal("difference", "<=", 50.0, "on - off", "ms"),
    )
    assert result.measure.median == pytest.approx(4.0)
    assert result.verdict == "met"


def test_the_ratio_is_taken_per_round_in_the_stated_direction() -> None:
    result = compare(
        name="x",
        title="x",
        unit="ms",
        a_label="fake",
        a=[1.0, 2.0, 1.0],
        b_label="moto",
        b=[5.0, 10.0, 5.0],
        ratio_label="moto / fake",
        reference_over_patgate=True,
        goal=Goal("ratio", ">=", 5.0, "moto / fake"),
    )
    assert result.ratio is not None
    assert (result.ratio.low, result.ratio.median, result.ratio.high) == (5.0, 5.0, 5.0)
    assert result.verdict == "met"
    assert Result.from_json(result.to_json()) == result
