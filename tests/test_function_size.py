"""Functions stay short: none in ``src/patgate`` runs over :data:`MOST_LINES` lines.

A long function is split into named steps that read as the story they tell. One that must
stay long for a while is named in :data:`ALLOWED`, by file and function; an entry that no
longer needs its place fails too, so the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "patgate"
MOST_LINES = 60
ALLOWED: frozenset[tuple[str, str]] = frozenset()
"""(file below ``src/patgate``, function name) allowed over the limit for now."""


def long_functions(package: Path, most: int = MOST_LINES) -> dict[tuple[str, str], int]:
    """Every function or method over ``most`` lines (its ``def`` to its last line), by file
    and name, with its length."""
    found: dict[tuple[str, str], int] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > most:
                    found[(path.relative_to(package).as_posix(), node.name)] = length
    return found


def test_no_function_runs_over_sixty_lines() -> None:
    found = long_functions(PACKAGE)
    over = {place: length for place, length in found.items() if place not in ALLOWED}
    assert not over, "split these into named steps: " + ", ".join(
        f"{file} {name} ({length} lines)" for (file, name), length in sorted(over.items())
    )


def test_the_allow_list_names_only_functions_still_too_long() -> None:
    assert set(long_functions(PACKAGE)) >= ALLOWED, "remove the entries no longer needed"


def _function(lines: int) -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(lines - 2))
    return f"def long_one():\n{body}    return None\n"


def test_a_function_of_sixty_one_lines_is_caught(tmp_path: Path) -> None:
    (tmp_path / "module.py").write_text(_function(61), encoding="utf-8")
    (tmp_path / "fine.py").write_text(_function(60), encoding="utf-8")
    assert long_functions(tmp_path) == {("module.py", "long_one"): 61}
