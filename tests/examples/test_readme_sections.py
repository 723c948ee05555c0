"""Every python example in README.md's fixture sections after the first runs as a user's test
module and passes (the first is ``readme_example.py``, checked verbatim elsewhere)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SECTIONS = (
    "### Configuring the fake",
    "### Faults from Python",
    "### Listing and deleting tokens over GraphQL",
    "### Time, the request log and API keys",
)


def _blocks(heading: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    assert f"\n{heading}\n" in text, f"README.md lost its {heading!r} section"
    section = re.split(r"\n#{2,3} ", text.split(f"\n{heading}\n", 1)[1], maxsplit=1)[0]
    return re.findall(r"^```python\n(.*?)^```$", section, re.M | re.S)


@pytest.mark.parametrize("heading", SECTIONS)
def test_the_readme_examples_pass_as_a_users_tests(pytester: pytest.Pytester, heading: str) -> None:
    blocks = _blocks(heading)
    assert blocks, f"no python block under {heading!r}"
    for number, block in enumerate(blocks):
        pytester.makepyfile(**{f"test_readme_{number}": block})
    tests = sum(block.count("\ndef test_") + block.startswith("def test_") for block in blocks)
    result = pytester.runpytest("-W", "error", "-p", "no:cacheprovider", "--strict-markers")
    result.assert_outcomes(passed=tests)
