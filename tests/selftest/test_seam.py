"""The self-test injects faults through the domain's public seam only.

A private member of a ``patgate.fake`` class used from outside ``fake/`` would make renaming
it break the self-test (or a user's own fault); these tests find any such use.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "src" / "patgate" / "fake"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _domain_members() -> tuple[set[str], set[str]]:
    """(private members of fake/ classes, names of fake/ classes)."""
    private: set[str] = set()
    classes: set[str] = set()
    for path in FAKE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                classes.add(node.name)
                for item in ast.walk(node):
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(
                        item.name
                    ):
                        private.add(item.name)
                    if (
                        isinstance(item, ast.Attribute)
                        and isinstance(item.value, ast.Name)
                        and item.value.id == "self"
                        and _private(item.attr)
                    ):
                        private.add(item.attr)
    return private, classes


def _calls_private_super(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and _private(node.attr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "super"
    )


def _uses(path: Path, private: set[str], classes: set[str]) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own: set[str] = set()
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
        subclass = bool(bases & classes)
        for item in ast.walk(node):
            name = item.name if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
            if name and _private(name):
                if subclass and name in private:
                    found.append(f"{path.name}:{item.lineno} overrides {name}")
                own.add(name)
            if isinstance(item, ast.Attribute) and isinstance(item.ctx, ast.Store) and not subclass:
                own.add(item.attr)
            if subclass and _calls_private_super(item):
                found.append(f"{path.name}:{item.lineno} calls super().{item.attr}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in private and node.attr not in own:
            found.append(f"{path.name}:{node.lineno} uses {node.attr}")
    return found


def _outside_fake() -> list[Path]:
    files = [*(ROOT / "src" / "patgate").rglob("*.py"), *(ROOT / "tests").rglob("*.py")]
    return [f for f in files if FAKE not in f.parents and ".cache" not in f.parts]


def test_no_private_member_of_the_domain_is_used_outside_fake() -> None:
    private, classes = _domain_members()
    assert {"_lock", "_valid_name"} <= private  # the scan sees the domain's private members
    found = [use for path in _outside_fake() for use in _uses(path, private, classes)]
    assert found == []


def test_the_scan_catches_an_override_and_a_use(tmp_path: Path) -> None:
    private, classes = _domain_members()
    sample = tmp_path / "sample.py"
    sample.write_text(
        "class Broken(Deployment):\n"
        "    def _valid_name(self, name):\n"
        "        return name\n"
        "    def _gone(self):\n"
        "        return super()._gone()\n"
        "def peek(deployment):\n"
        "    return deployment._lock\n",
        encoding="utf-8",
    )
    assert _uses(sample, private, classes) == [
        "sample.py:2 overrides _valid_name",
        "sample.py:5 calls super()._gone",
        "sample.py:7 uses _lock",
    ]


def test_the_fault_catalogue_needs_no_type_ignore() -> None:
    assert "type: ignore" not in (Path(__file__).parent / "faults.py").read_text(encoding="utf-8")
