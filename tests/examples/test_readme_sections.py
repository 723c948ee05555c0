"""Every python example of the fixture's pages (README.md's quick start, the fixture tutorial's
sections after the first, the faults and clock guide) runs as a user's test module and passes
(the tutorial's first is ``readme_example.py``, checked verbatim elsewhere)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FIXTURE_PAGE = ROOT / "docs/tutorials/fixture.md"
FAULTS_PAGE = ROOT / "docs/how-to/faults-and-clock.md"
SECTIONS = {
    "## Quick start: the fake in your tests": README,
    "## Configuring the fake": FIXTURE_PAGE,
    "## Faults from Python": FAULTS_PAGE,
    "## Listing and deleting tokens over GraphQL": FIXTURE_PAGE,
    "## Time, the request log and API keys": FAULTS_PAGE,
}
"""Each section's heading and the page that holds it."""


def _blocks(heading: str) -> list[str]:
    page = SECTIONS[heading]
    text = page.read_text(encoding="utf-8")
    assert f"\n{heading}\n" in text, f"{page.name} lost its {heading!r} section"
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
