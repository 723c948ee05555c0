"""The page has no second implementation: only ``ui/operations.py`` reaches the fake."""

from __future__ import annotations

import ast
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "src" / "patgate" / "ui"


def test_only_the_adapter_touches_the_deployment() -> None:
    offenders = []
    for path in sorted(UI.glob("*.py")):
        if path.name == "operations.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("deployment", "request_log"):
                offenders.append(f"{path.name}:{node.lineno} uses .{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module == "patgate.fake.deployment":
                offenders.append(f"{path.name}:{node.lineno} imports the deployment")
    assert offenders == []
