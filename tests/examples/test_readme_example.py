"""The fixture tutorial's first example cannot rot: it is this folder's ``readme_example.py``.

One test checks that the block under the heading "Using the fake in your tests" is that
file (less its docstring); the other runs the file as the test module of a fresh project.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs/tutorials/fixture.md"
EXAMPLE = Path(__file__).with_name("readme_example.py")
HEADING = "## Using the fake in your tests"


def readme_block() -> str | None:
    """The first fenced python block of the page's section, ``None`` without that section."""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    if HEADING not in lines:
        return None
    section: list[str] = []
    for line in lines[lines.index(HEADING) + 1 :]:
        if line.startswith("## "):
            break
        section.append(line)
    found = re.search(r"^```python\n(.*?)^```$", "\n".join(section) + "\n", re.M | re.S)
    return found.group(1) if found else ""


def example_without_docstring() -> str:
    """``readme_example.py`` from the first line after its module docstring."""
    source = EXAMPLE.read_text(encoding="utf-8")
    first = ast.parse(source).body[0]
    assert isinstance(first, ast.Expr), "readme_example.py must start with a docstring"
    assert first.end_lineno is not None
    return "\n".join(source.splitlines()[first.end_lineno :]).lstrip("\n") + "\n"


def test_the_readme_shows_the_example_verbatim() -> None:
    block = readme_block()
    assert block is not None, f"{PAGE.name} lost its {HEADING!r} section"
    assert block, f"the {HEADING!r} section of {PAGE.name} has no ```python block"
    assert block == example_without_docstring(), (
        f"{PAGE.name}'s example differs from tests/examples/readme_example.py; "
        "copy the file (without its docstring) into the page"
    )


def test_the_example_passes_as_a_users_test_module(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_readme=EXAMPLE.read_text(encoding="utf-8"))
    pytester.runpytest("-W", "error", "-p", "no:cacheprovider").assert_outcomes(passed=1)
