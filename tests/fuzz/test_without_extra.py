"""``patgate fuzz`` without the fuzz extra: a usage error that says how to install it.

This module runs whether or not schemathesis is installed: it hides the package.
"""

from __future__ import annotations

import sys

import pytest

from patgate.cli import main


def test_without_the_fuzz_extra_the_command_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "schemathesis", None)  # makes `import schemathesis` fail
    monkeypatch.delitem(sys.modules, "patgate.fuzz.engine", raising=False)
    code = main(["fuzz", "--max-examples", "1"])
    assert code == 2
    assert "pip install 'patgate[fuzz]'" in capsys.readouterr().err
