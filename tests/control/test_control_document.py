"""The control plane is made from one declaration: the generated files are up to date, and
every front door has each operation with the declared name, parameters and docstring."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from patgate.control import document as control_document
from patgate.control.operations import OPERATIONS, by_name
from patgate.control_client import ControlClient
from patgate.harness import Fake
from patgate.ui.operations import UiOperations
from patgate.wire.control_api import ROUTES


def test_the_generated_files_are_what_the_declaration_makes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert control_document.main(["--check"]) == 0, capsys.readouterr().out


def test_a_declaration_the_files_lack_is_caught(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The twin of the test above: an operation declared but not regenerated fails the check
    # for the document, the fake, the client and the page.
    changed = dataclasses.replace(by_name("reset"), doc="Back to the start.", summary=None)
    operations = tuple(changed if op.name == "reset" else op for op in OPERATIONS)
    monkeypatch.setattr(control_document, "OPERATIONS", operations)
    assert control_document.main(["--check"]) == 1
    stale = capsys.readouterr().out
    for name in ("control-openapi.yaml", "harness.py", "control_client.py", "operations.py"):
        assert name in stale


def test_the_routes_are_the_declared_operations() -> None:
    assert [(r.method, r.path) for r in ROUTES] == [(o.method, o.path) for o in OPERATIONS]


@pytest.mark.parametrize("operation", [o for o in OPERATIONS if o.python], ids=lambda o: o.name)
def test_fake_and_client_have_the_declared_method(operation: object) -> None:
    assert isinstance(operation, type(OPERATIONS[0]))
    for owner, wire_only in ((Fake, False), (ControlClient, True)):
        method = getattr(owner, operation.name)
        assert (inspect.getdoc(method) or "").split() == operation.doc.split()
        declared = [
            p.name for p in operation.parameters if not p.extra and (p.wire or not wire_only)
        ]
        taken = [
            name
            for name, p in inspect.signature(method).parameters.items()
            if name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        assert taken == declared, owner.__name__


def test_the_page_offers_the_operations_marked_for_it() -> None:
    for operation in OPERATIONS:
        offered = operation.name in vars(UiOperations)
        assert offered or not operation.page, operation.name
