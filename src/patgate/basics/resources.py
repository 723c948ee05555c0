"""Where the shipped specs and scenarios are: inside the wheel, or in a source checkout."""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["scenarios_dir", "specs_dir"]

# The package root (this module sits one folder below it).
_PACKAGE = Path(__file__).resolve().parent.parent


@functools.cache
def _data_dir(name: str) -> Path:
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    # An editable install or a checkout on sys.path: the folders sit at the project root.
    checkout = _PACKAGE.parent.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"patgate's {name}/ folder is missing from {installed} and {checkout}")


def specs_dir() -> Path:
    """The folder holding ``rules.yaml``, ``openapi.yaml``, ``schema.graphql`` and schemas."""
    return _data_dir("specs")


def scenarios_dir() -> Path:
    """The folder holding the built-in conformance scenarios."""
    return _data_dir("scenarios")
