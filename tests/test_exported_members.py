"""The public API: ``patgate.__all__`` is sorted, and every name in it exists."""

from __future__ import annotations

import inspect
import re

import patgate


def _ruff_order(name: str) -> tuple[int, list[int | str]]:
    """The order ruff's RUF022 keeps ``__all__`` in: constants, then classes, then the rest,
    each in natural order (``Error2`` before ``Error10``)."""
    if len(name) > 1 and name.isupper():
        category = 0
    elif name[:1].isupper():
        category = 1
    else:
        category = 2
    natural: list[int | str] = [
        int(part) if part.isdigit() else part for part in re.split(r"([0-9]+)", name)
    ]
    return category, natural


def test_all_is_sorted_without_duplicates() -> None:
    assert patgate.__all__ == sorted(set(patgate.__all__), key=_ruff_order)


def test_every_exported_name_resolves() -> None:
    namespace: dict[str, object] = {}
    exec("from patgate import *", namespace)  # noqa: S102 - a constant statement, on purpose
    assert [name for name in patgate.__all__ if name not in namespace] == []


def test_exported_objects_are_patgate_s_own() -> None:
    # Re-exporting a third-party or stdlib object would make it part of patgate's API.
    exported = {name: getattr(patgate, name) for name in patgate.__all__}
    foreign = [
        name
        for name, obj in exported.items()
        if (inspect.isclass(obj) or inspect.isfunction(obj))
        and obj.__module__.partition(".")[0] != "patgate"
    ]
    assert foreign == []


def test_version_is_a_non_empty_string() -> None:
    assert isinstance(patgate.__version__, str)
    assert patgate.__version__.strip()
    assert "__version__" in patgate.__all__
