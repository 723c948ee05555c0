"""``reference/errors.md``: every exception class patgate raises, as a tree, with exit codes."""

from __future__ import annotations

import importlib
import pkgutil

from docs.reference_pages import cell, first_paragraph, generated_notice, source


def _import_every_module() -> list[str]:
    """Import the whole package so that every error class is defined; the modules left
    out because an optional extra is missing."""
    package = source("package")
    missing = []
    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue  # running it is its only use
        try:
            importlib.import_module(info.name)
        except ModuleNotFoundError as error:
            if (error.name or "").split(".")[0] == package.__name__:
                raise
            missing.append(f"{info.name} (needs {error.name})")
    return missing


def error_classes() -> list[type[BaseException]]:
    """The root error class and every subclass, depth first, siblings by name."""
    _import_every_module()
    root: type[BaseException] = source("errors").PatgateError
    found: list[type[BaseException]] = []

    def visit(cls: type[BaseException]) -> None:
        found.append(cls)
        for sub in sorted(cls.__subclasses__(), key=lambda c: c.__name__):
            if sub not in found:
                visit(sub)

    visit(root)
    return found


def _depth(cls: type[BaseException], root: type[BaseException]) -> int:
    depth = 0
    while cls is not root:
        cls = next(base for base in cls.__bases__ if issubclass(base, root))
        depth += 1
    return depth


def _line(cls: type[BaseException], root: type[BaseException]) -> str:
    others = [b.__name__ for b in cls.__bases__ if not issubclass(b, root)]
    also = f" (also `{'`, `'.join(others)}`)" if others else ""
    facts = [f"exit code {getattr(cls, 'exit_code', 1)}", f"`{cls.__module__}`"]
    if isinstance(getattr(cls, "code", None), str):
        facts.append(f"code `{cls.code}`")  # type: ignore[attr-defined]
    if getattr(cls, "default_rule", ""):
        facts.append(f"rule `{cls.default_rule}`")  # type: ignore[attr-defined]
    indent = "    " * _depth(cls, root)
    text = cell(first_paragraph(cls.__doc__))
    return f"{indent}- **`{cls.__name__}`**{also}: {text} ({'; '.join(facts)})"


def render() -> str:
    """The page."""
    classes = error_classes()
    root = classes[0]
    lines = [
        "# Errors",
        "",
        generated_notice("the exception classes of the `patgate` package"),
        "Every error patgate raises on purpose derives from `PatgateError`. On the command",
        "line an error is printed as one line and exits with its class's exit code; under",
        "pytest a check's failure is an `AssertionError`, shown as the test's failure.",
        "A class that also derives from a built-in exception can be caught as that too.",
        "",
        *(_line(cls, root) for cls in classes),
        "",
    ]
    missing = _import_every_module()
    if missing:
        lines += ["Not imported (an optional extra is missing): " + ", ".join(missing), ""]
    return "\n".join(lines)
