"""Every patgate type a public signature names is importable from ``patgate``.

The walk starts at ``patgate.__all__`` and visits, for each exported class, its public
methods (``__init__`` included), properties, fields and ``self.`` attributes annotated in its
methods; for each exported function, its signature. Each name an annotation mentions is
resolved through the defining module's imports (those under ``TYPE_CHECKING`` included):
one that lands in a patgate module must be exported, and is then walked in turn.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import sys
import textwrap
import types
import typing
from collections.abc import Iterator

import patgate

# The fake makes it (``fake.content``); a user never constructs it, so its constructor's
# parameter (the fake's wire app) is not part of the public surface.
_CONSTRUCTED_BY_THE_FAKE = frozenset({"ContentPaths"})
# patgate serve --state's journal hooks into the domain here; a test never calls them.
_SERVE_STATE_HOOKS = frozenset({"Deployment.track_changes", "Deployment.changes"})


@functools.cache
def _imports(module_name: str) -> dict[str, tuple[str, str | None]]:
    """Name -> (module, attribute) for every import of a module, TYPE_CHECKING ones too."""
    module = sys.modules[module_name]
    found: dict[str, tuple[str, str | None]] = {}
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                found[alias.asname or alias.name] = (node.module, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found[alias.asname or alias.name.partition(".")[0]] = (alias.name, None)
    return found


def _annotations(obj: object) -> Iterator[tuple[str, str, object]]:
    """(where, annotation, function or class that holds it) for one exported object."""

    def signature(where: str, function: object) -> Iterator[tuple[str, str, object]]:
        try:
            sig = inspect.signature(function)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return
        for parameter in sig.parameters.values():
            if parameter.annotation is not inspect.Parameter.empty:
                yield f"{where}({parameter.name})", parameter.annotation, function
        if sig.return_annotation is not inspect.Signature.empty:
            yield f"{where} ->", sig.return_annotation, function

    if inspect.isfunction(obj):
        yield from signature(obj.__qualname__, obj)
        return
    if not inspect.isclass(obj):
        return
    for klass in obj.__mro__:
        if not klass.__module__.startswith("patgate"):
            continue
        for name, value in vars(klass).items():
            public = not name.startswith("_")
            if name == "__init__":
                public = obj.__name__ not in _CONSTRUCTED_BY_THE_FAKE
            if not public:
                continue
            where = f"{obj.__name__}.{name}"
            if isinstance(value, property) and value.fget is not None:
                yield from signature(where, value.fget)
            elif isinstance(value, staticmethod | classmethod):
                yield from signature(where, value.__func__)
            elif inspect.isfunction(value):
                yield from signature(where, value)
        for name, annotation in vars(klass).get("__annotations__", {}).items():
            if not name.startswith("_"):
                yield f"{obj.__name__}.{name}", annotation, klass
        source = textwrap.dedent(inspect.getsource(klass))
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Attribute)
                and isinstance(node.target.value, ast.Name)
                and node.target.value.id == "self"
                and not node.target.attr.startswith("_")
            ):
                yield f"{obj.__name__}.{node.target.attr}", ast.unparse(node.annotation), klass


def _names(annotation: object) -> Iterator[str]:
    if not isinstance(annotation, str):  # an evaluated annotation: its classes, by name
        for part in (annotation, *typing.get_args(annotation)):
            if inspect.isclass(part) and part.__module__.startswith("patgate"):
                yield part.__name__
            elif part is not annotation:
                yield from _names(part)
        return
    for node in ast.walk(ast.parse(annotation, mode="eval")):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield from _names(node.value)  # a quoted forward reference


def _patgate_object(holder: object, name: str) -> tuple[str, object] | None:
    """The patgate object ``name`` means where ``holder`` is defined, or ``None``."""
    module_name = holder.__module__  # type: ignore[attr-defined]
    module = sys.modules[module_name]
    imported = _imports(module_name).get(name)
    if imported is not None:
        source, attribute = imported
        if not source.startswith("patgate") or attribute is None:
            return None
        value = getattr(importlib.import_module(source), attribute)
        return (None, None) if isinstance(value, types.ModuleType) else (name, value)  # type: ignore[return-value]
    if hasattr(module, name) and not hasattr(builtins, name):
        value = getattr(module, name)
        owner = getattr(value, "__module__", module_name) or module_name
        if owner.startswith("patgate") and not isinstance(value, types.ModuleType):
            return name, value
    return None


def test_every_type_in_a_public_signature_is_exported() -> None:
    missing: dict[str, list[str]] = {}
    walked: set[str] = set()
    queue = [name for name in patgate.__all__ if not name.startswith("__")]
    while queue:
        exported = queue.pop()
        if exported in walked:
            continue
        walked.add(exported)
        for where, annotation, holder in _annotations(getattr(patgate, exported)):
            if where.partition("(")[0].partition(" ")[0] in _SERVE_STATE_HOOKS:
                continue
            for name in _names(annotation):
                found = _patgate_object(holder, name)
                if not found or found[0] is None:
                    continue
                if getattr(patgate, name, None) is not found[1]:
                    missing.setdefault(name, []).append(where)
                elif name not in walked:
                    queue.append(name)
    assert missing == {}
    assert {"PatStatus", "Deployment", "RequestLog", "LoggedRequest", "Role"} <= walked


def test_the_fake_s_types_import_from_patgate_without_loading_the_fake() -> None:
    import subprocess

    code = (
        "import sys, patgate\n"
        "assert 'patgate.fake.deployment' not in sys.modules\n"
        "from patgate import PatStatus, Deployment, CreatedToken\n"
        "from patgate.fake.model import PatStatus as Original\n"
        "assert PatStatus is Original and PatStatus.PENDING.value == 'pending'\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr
