"""The layers of ARCHITECTURE.md: an import never points up."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "patgate"

# What sits above the HTTP app: neither the wire app nor the management page it mounts
# may import these.
_ABOVE_WIRE = (
    "patgate.transports",
    "patgate.harness",
    "patgate.runner",
    "patgate.reporting",
    "patgate.scenario",
    "patgate.cli",
    "patgate.commands",
    "patgate.pytest_plugin",
)

# layer -> patgate modules it must not import
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "fake": (
        "patgate.wire",
        "patgate.transports",
        "patgate.harness",
        "patgate.runner",
        "patgate.reporting",
        "patgate.scenario",
        "patgate.cli",
        "patgate.commands",
        "patgate.pytest_plugin",
        "patgate.checks",
    ),
    "wire": _ABOVE_WIRE,
    "ui": _ABOVE_WIRE,
    "transports": (
        "patgate.runner",
        "patgate.reporting",
        "patgate.scenario",
        "patgate.cli",
        "patgate.commands",
        "patgate.pytest_plugin",
    ),
    "scenario": (
        "patgate.fake",
        "patgate.wire",
        "patgate.transports",
        "patgate.harness",
        "patgate.runner",
        "patgate.reporting",
        "patgate.cli",
        "patgate.commands",
        "patgate.pytest_plugin",
        "patgate.checks",
    ),
    "runner": (
        "patgate.reporting",
        "patgate.cli",
        "patgate.commands",
        "patgate.pytest_plugin",
        "patgate.wire",
        "patgate.transports",
    ),
    "fuzz": ("patgate.cli", "patgate.commands", "patgate.pytest_plugin"),
    "reporting": (
        "patgate.fake",
        "patgate.wire",
        "patgate.transports",
        "patgate.harness",
        "patgate.scenario",
        "patgate.cli",
        "patgate.commands",
        "patgate.pytest_plugin",
        "patgate.runner.engine",
    ),
}
THIRD_PARTY_FORBIDDEN_IN_FAKE = ("httpx", "requests", "respx", "responses", "pytest")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


CHECKS_MAY_IMPORT = (
    "patgate.errors",
    "patgate.scenario.paths",
    "patgate.scenario.check_kinds",
    "patgate.basics.observed",
    "patgate.basics.token_grammar",
)


def _layer_files(layer: str) -> list[Path]:
    folder = PACKAGE / layer
    return sorted(folder.rglob("*.py")) if folder.is_dir() else [PACKAGE / f"{layer}.py"]


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_layer_imports_one_above_it(layer: str) -> None:
    offenders = []
    for path in _layer_files(layer):
        for name in _imports(path):
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN[layer]):
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offenders == []


def test_the_domain_has_no_http_or_pytest() -> None:
    offenders = [
        f"{path.name} imports {name}"
        for path in sorted((PACKAGE / "fake").rglob("*.py"))
        for name in _imports(path)
        if name.split(".")[0] in THIRD_PARTY_FORBIDDEN_IN_FAKE
    ]
    assert offenders == []


def test_checks_are_plain_functions_over_scenario_paths() -> None:
    imported = {name for name in _imports(PACKAGE / "checks.py") if name.startswith("patgate")}
    assert imported <= set(CHECKS_MAY_IMPORT)


def test_the_observed_values_and_the_registries_import_only_light_modules() -> None:
    # Checks, the fuzzer and the scenario layer import them: they must stay plain values.
    light = (
        "patgate.scenario.registry",
        "patgate.scenario.model",
        "patgate.service.target_contract",
        "patgate.scenario.building",  # for type hints only
    )
    for path in (
        PACKAGE / "basics" / "observed.py",
        PACKAGE / "scenario" / "registry.py",
        PACKAGE / "scenario" / "check_kinds.py",
    ):
        imported = {name for name in _imports(path) if name.startswith("patgate")}
        assert imported <= set(light), path.name
