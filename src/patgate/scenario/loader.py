"""Scenario files -> validated, typed :class:`Scenario` values, or an error naming file:line.

A file is checked in three passes: YAML (syntax, duplicated keys), the JSON Schema
``specs/scenario.schema.json`` (shape), then what a schema cannot say: rule ids exist,
``${name}`` references are defined before use, paths and expressions parse, schema files
exist, and no literal looks like a secret.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patgate.basics.resources import specs_dir
from patgate.basics.token_grammar import ANY_PAT_SCAN, JWT_SCAN
from patgate.errors import ScenarioError
from patgate.guards.supplied_files import FileRefused, check_yaml_text, load_json, read_yaml_text
from patgate.scenario._step_builder import StepBuilder, describe_where
from patgate.scenario.bounds import foreign_refs
from patgate.scenario.catalogue import Catalogue, load_catalogue
from patgate.scenario.model import Scenario
from patgate.scenario.source import SourceDocument, read_documents

__all__ = ["ScenarioFile", "find_scenario_files", "load_file", "load_scenarios", "load_text"]

_SUFFIXES = (".yaml", ".yml")
_DENSE_RUN = re.compile(r"[A-Za-z0-9+/=_-]{40,}")
_ENTROPY_LIMIT = 4.7
"""Bits per character above which a 40+ character run is taken for a random secret."""


@dataclass(frozen=True)
class ScenarioFile:
    """One scenario file and the scenarios it holds, in order."""

    path: Path
    scenarios: tuple[Scenario, ...]


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    from patgate.scenario.schema_document import scenario_schema

    return Draft202012Validator(scenario_schema())


def find_scenario_files(directory: Path) -> list[Path]:
    """The scenario files directly inside ``directory``, sorted by name."""
    if not directory.is_dir():
        raise ScenarioError(f"{directory} is not a folder of scenarios")
    return sorted(p for p in directory.iterdir() if p.suffix in _SUFFIXES and p.is_file())


def load_file(path: Path, *, catalogue: Catalogue | None = None) -> ScenarioFile:
    """Read and validate one scenario file (read under :mod:`patgate.guards.supplied_files`)."""
    try:
        text = read_yaml_text(path)
    except FileRefused as error:
        raise ScenarioError(error.problem, path=str(path), line=error.line) from None
    return ScenarioFile(path, load_text(text, str(path), catalogue=catalogue))


def load_text(text: str, path: str, *, catalogue: Catalogue | None = None) -> tuple[Scenario, ...]:
    """Validate the scenarios in ``text``; ``path`` names it in messages."""
    catalogue = catalogue if catalogue is not None else load_catalogue()
    try:
        check_yaml_text(text, path)
    except FileRefused as error:
        raise ScenarioError(error.problem, path=path, line=error.line) from None
    documents = [doc for doc in read_documents(text, path) if doc.data is not None]
    if not documents:
        raise ScenarioError("the file holds no scenario", path=path, line=1)
    scenarios = tuple(_scenario(doc, catalogue) for doc in documents)
    _unique_ids(scenarios)
    return scenarios


def load_scenarios(
    sources: Iterable[Path], *, catalogue: Catalogue | None = None
) -> tuple[Scenario, ...]:
    """Every scenario in ``sources`` (files, or folders of files); ids must be unique."""
    scenarios: list[Scenario] = []
    for source in sources:
        if not source.exists():
            raise ScenarioError(f"{source}: no such scenario file or folder")
        files = find_scenario_files(source) if source.is_dir() else [source]
        for file in files:
            scenarios.extend(load_file(file, catalogue=catalogue).scenarios)
    _unique_ids(scenarios)
    return tuple(scenarios)


def _unique_ids(scenarios: Sequence[Scenario]) -> None:
    seen: dict[str, Scenario] = {}
    for scenario in scenarios:
        first = seen.setdefault(scenario.id, scenario)
        if first is not scenario:
            raise ScenarioError(
                f"the scenario id {scenario.id!r} is already used at {first.location}",
                path=scenario.source,
                line=scenario.line,
            )


# -- pass 2: the JSON Schema -----------------------------------------------------------------


def _check_shape(doc: SourceDocument) -> None:
    if not isinstance(doc.data, dict):
        raise doc.error("a scenario is a mapping with id, title, rules and steps")
    errors = list(_validator().iter_errors(doc.data))
    if not errors:
        return
    error = max(errors, key=lambda e: len(e.absolute_path))
    where = list(error.absolute_path)
    message = error.schema.get("errorMessage") if isinstance(error.schema, dict) else None
    if "propertyNames" in error.relative_schema_path:
        where.append(str(error.instance))
        message = f"unknown key {error.instance!r}" + (f": {message}" if message else "")
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = error.schema.get("properties", {})
        extra = sorted(key for key in error.instance if key not in allowed)
        if extra:
            where.append(extra[0])
            message = f"unknown key {extra[0]!r} (allowed here: {', '.join(sorted(allowed))})"
    elif error.validator == "required":
        missing = [key for key in error.validator_value if key not in error.instance]
        message = f"missing key {missing[0]!r}" if missing else error.message
    raise doc.error(f"{_where(where)}{message or error.message}", where)


_where = describe_where


# -- pass 3: what the schema cannot say -------------------------------------------------------


def _scenario(doc: SourceDocument, catalogue: Catalogue) -> Scenario:
    _check_shape(doc)
    _no_literal_secrets(doc, doc.data, ())
    data: Mapping[str, Any] = doc.data
    rules = tuple(data["rules"])
    for index, rule in enumerate(rules):
        if rule not in catalogue:
            raise doc.error(f"unknown rule {rule!r} (see `patgate rules`)", ["rules", index])
    builder = StepBuilder(doc, rules, _schema_folders(doc.path))
    steps = tuple(builder.step(raw, ["steps", i]) for i, raw in enumerate(data["steps"]))
    builder.in_cleanup = True
    cleanup = tuple(
        builder.step(raw, ["cleanup", i]) for i, raw in enumerate(data.get("cleanup", ()))
    )
    _refs_stay_inside(doc, (*steps, *cleanup))
    checked = {e.rule for step in (*steps, *cleanup) for e in step.expect}
    for index, rule in enumerate(rules):
        if rule not in checked:
            raise doc.error(f"no expectation checks the rule {rule!r}", ["rules", index])
    declared_control = data.get("control")
    if declared_control is False and builder.uses_control:
        raise doc.error("control is false, yet a step uses control", ["control"])
    # writes: false lets a scenario that only deletes ids no one holds run read-only; a
    # create would then write to a deployment the user asked patgate only to read.
    if data.get("writes") is False and builder.creates:
        raise doc.error(
            "writes is false, yet a step creates a token or sends a write the ledger cannot track",
            ["writes"],
        )
    needs = set(data.get("needs", ())) | builder.target_keys
    return Scenario(
        id=data["id"],
        title=data["title"],
        rules=rules,
        needs=tuple(sorted(needs)),
        writes=bool(data["writes"]) if "writes" in data else builder.writes,
        waits=bool(data.get("waits", False)) or builder.waits,
        control=bool(declared_control) or builder.uses_control,
        steps=steps,
        cleanup=cleanup,
        source=doc.path,
        line=doc.line,
        description=str(data.get("description", "")).strip(),
        appends=tuple(sorted(builder.appends)),
        bulk=bool(data.get("bulk", False)),
        untracked_writes=builder.untracked_writes,
    )


def _refs_stay_inside(doc: SourceDocument, steps: Sequence[Any]) -> None:
    """A schema (inline, or a file beside the scenario) may ``$ref`` only inside itself: a
    reference to a file or a URL would be read outside the runner's rules."""
    shipped = (specs_dir() / "schemas").resolve()
    for step in steps:
        for expectation in step.expect:
            if expectation.check != "schema":
                continue
            schema = expectation.argument
            if isinstance(schema, str):
                if Path(schema).resolve().parent == shipped:
                    continue
                schema = load_json(schema)  # read and checked once already, when named
            for where, reference in foreign_refs(schema)[:1]:
                spot = "/".join(str(part) for part in where)
                raise ScenarioError(
                    f"the schema's {spot} refers to {reference!r}; a schema may refer only "
                    "inside itself (#...); name a shipped schema file with schema: FILE",
                    path=doc.path,
                    line=expectation.line,
                )


def _schema_folders(path: str) -> tuple[Path, ...]:
    return (Path(path).resolve().parent, specs_dir() / "schemas")


def _no_literal_secrets(doc: SourceDocument, value: Any, where: tuple[str | int, ...]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _no_literal_secrets(doc, item, (*where, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _no_literal_secrets(doc, item, (*where, index))
    elif isinstance(value, str):
        reason = _looks_secret(value)
        if reason:
            raise doc.error(
                f"{_where(list(where))}this literal looks like {reason}; refer to secrets as "
                "${key} (a target key) or a captured value",
                where,
            )


def _looks_secret(text: str) -> str:
    if ANY_PAT_SCAN.search(text):
        return "a personal access token"
    if JWT_SCAN.search(text):
        return "a JWT"
    for run in _DENSE_RUN.findall(text):
        if _entropy(run) > _ENTROPY_LIMIT:
            return "a random secret"
    return ""


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())
