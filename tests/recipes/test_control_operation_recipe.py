"""The recipe "A control operation" holds when followed, in a copy of the tree.

A toy operation (``user_count``) is declared in ``control/operations.py`` and implemented on
``ControlService``; one command regenerates the rest. The test checks that the recipe's hand
edits touch at most :data:`MOST_EDITED` files (and name each one), that every other file it
changed is one the command writes, and that in the copy the operation is a route of the
control API, a path of the OpenAPI document, and a method of ``ControlClient`` and ``Fake``
with its types (mypy, strict) and answers the same through both.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.recipes.test_recipes import (
    ROOT,
    Insert,
    Regenerate,
    _apply,
    _copy_tree,
    _digests,
    _environment,
)

MOST_EDITED = 3
HEADING = "**A control operation.**"
RECIPE = """**A control operation.** Three files and a test. `control/operations.py`: an
`Operation` in `OPERATIONS` (name, docstring, HTTP method and path, each `Parameter` with
its Python annotation and JSON Schema, what `Fake` returns and, when it differs, what
`ControlClient` returns, the success answer for the OpenAPI document, `page=True` if the
management page offers it as it is). `wire/control_service.py`: the method of the same name
(a plain Python call returning a domain value; `self.changes.mark(...)` where it alters
state). Regenerate with `python -m patgate.control.document`: it writes the `paths` of
`specs/control-openapi.yaml`, the control methods of `Fake` (`harness.py`) and
`ControlClient` (`control_client.py`) and the page's actions (`ui/operations.py`); the
control API's routes are made from the declaration when imported. An answer that is not the
domain value's own JSON view (`fake/views.py`) names a shape of `control_api._ANSWERS`, the
third file. Tests: a test of the operation through `Fake` and `ControlClient`;
`tests/control/test_control_document.py` fails until the files are regenerated."""

GENERATED = (
    "specs/control-openapi.yaml",
    "src/patgate/harness.py",
    "src/patgate/control_client.py",
    "src/patgate/ui/operations.py",
)

STEPS = (
    Insert(
        "src/patgate/control/operations.py",
        """    Operation(
        "user_count",
        "How many users the fake holds, members or not.",
        "GET",
        "/users/count",
        returns="int",
        client_returns="int",
        client_answer='answer["count"]',
        wrap="count",
        response=_json("The count.", {"type": "object", "properties": {"count": {}}}),
    ),
""",
        after="OPERATIONS: tuple[Operation, ...] = (\n",
    ),
    Insert(
        "src/patgate/wire/control_service.py",
        '''
    def user_count(self) -> int:
        """How many users the fake holds, members or not."""
        return len(self.deployment.users)
''',
        after="        return list(self.deployment.hubs)\n",
    ),
    Regenerate("patgate.control.document"),
    Insert(
        "tests/control/test_toy_operation.py",
        """import yaml

from patgate import ControlClient, Fake
from patgate.control.document import SPEC
from patgate.wire.control_api import ROUTES


def test_the_toy_operation_is_everywhere() -> None:
    assert ("GET", "/users/count") in [(route.method, route.path) for route in ROUTES]
    document = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    assert document["paths"]["/users/count"]["get"]["operationId"] == "userCount"
    with Fake() as fake:
        fake.add_user("Someone Else")
        client = ControlClient(fake.world["control_url"], fake.control_token)
        assert fake.user_count() == client.user_count() == len(fake.users())
""",
    ),
)


def _run(tree: Path, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *command],
        cwd=tree,
        env=_environment(tree),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _recipe_text() -> str:
    architecture = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    if HEADING in architecture:
        return architecture.split(HEADING, 1)[1].split("\n\n", 1)[0]
    return RECIPE


@pytest.mark.slow
def test_following_the_control_operation_recipe_adds_it_everywhere(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path / "tree")
    before = _digests(tree)
    for step in STEPS:
        _apply(step, tree)
    after = _digests(tree)
    touched = sorted(path for path in after if before.get(path) != after[path])
    edited = {step.path for step in STEPS if isinstance(step, Insert)}
    hand_edited = sorted(p for p in edited if not p.startswith("tests/"))
    assert len(hand_edited) <= MOST_EDITED, hand_edited
    assert set(touched) - edited <= set(GENERATED), touched
    text = _recipe_text()
    for path in hand_edited + [p for p in touched if p in GENERATED]:
        shown = path.removeprefix("src/patgate/")
        assert shown in text, f"the recipe never names {path}"
    tests = _run(
        tree,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-n",
        "0",
        "--run-slow",
        "tests/control/test_toy_operation.py",
        "tests/control/test_control_document.py",
        "tests/control/test_control_spec.py",
    )
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    typed = _run(tree, "-m", "mypy", "src/patgate/harness.py", "src/patgate/control_client.py")
    assert typed.returncode == 0, typed.stdout[-4000:]
