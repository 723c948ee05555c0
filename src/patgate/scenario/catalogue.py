"""The rule catalogue, ``specs/rules.yaml``, as typed values.

The file holds the specification's clauses, section by section, and the rules. Every rule
names its ``source``: a gate rule the section and the clause it enforces (quoted; each quote
must be part of a clause of that section), an advisory rule either such a clause or the
convention it follows (an RFC, a published fact, a security item). The loader checks the
file against ``specs/rules.schema.json`` and the quotes against the clauses, and names the
file, line and rule of anything wrong.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from patgate.basics.levels import Level
from patgate.basics.resources import specs_dir
from patgate.errors import UsageError

__all__ = ["Catalogue", "Level", "Rule", "Section", "Source", "load_catalogue"]


@dataclass(frozen=True)
class Section:
    """A section of the specification and its clauses, as ``rules.yaml`` restates them."""

    number: str
    title: str
    clauses: tuple[str, ...]


@dataclass(frozen=True)
class Source:
    """What a rule enforces: a documented clause (``section`` set), or a convention."""

    clauses: tuple[str, ...]
    """The clause, quoted briefly (one quote or several)."""
    section: str = ""
    """The specification's section the quotes come from; empty for a convention."""
    convention: str = ""
    """The RFC, published fact or security item an advisory rule follows."""
    also: tuple[Source, ...] = ()
    """The same rule as other sections of the specification state it."""

    @property
    def documented(self) -> bool:
        """Whether the rule rests on a clause of the specification."""
        return bool(self.section)

    def cite(self) -> str:
        """``spec 2.1: "quote"`` or ``convention (RFC 6750 3.1): "quote"``, for listings."""
        quotes = "; ".join(f'"{clause}"' for clause in self.clauses)
        if self.documented:
            return "; ".join([f"spec {self.section}: {quotes}", *(s.cite() for s in self.also)])
        return f"convention ({self.convention}): {quotes}"

    def quoting(self) -> Iterator[tuple[str, str, tuple[str | int, ...]]]:
        """``(section, quote, where)`` of every documented quote, ``where`` below ``source``."""
        if not self.documented:
            return
        for index, quote in enumerate(self.clauses):
            yield self.section, quote, ("clause", index)
        for number, other in enumerate(self.also):
            for section, quote, where in other.quoting():
                yield section, quote, ("also", number, *where)


@dataclass(frozen=True)
class Rule:
    """One documented rule: a gate fails the run, an advisory rule only warns."""

    id: str
    title: str
    level: Level
    sections: tuple[str, ...]
    summary: str
    source: Source | None = None

    def __post_init__(self) -> None:
        # A level given as its text ("gate") is taken as the enum member.
        object.__setattr__(self, "level", Level(self.level))

    @property
    def is_gate(self) -> bool:
        """Whether a failure of this rule fails the run."""
        return self.level is Level.GATE


@dataclass(frozen=True)
class Catalogue:
    """Every rule, in the catalogue's order, and the specification's clauses."""

    rules: tuple[Rule, ...]
    specification: tuple[Section, ...] = ()

    @functools.cached_property
    def by_id(self) -> Mapping[str, Rule]:
        """Rule id -> rule."""
        return {rule.id: rule for rule in self.rules}

    @functools.cached_property
    def sections(self) -> Mapping[str, Section]:
        """Section number -> section."""
        return {section.number: section for section in self.specification}

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.by_id

    def __getitem__(self, rule_id: str) -> Rule:
        return self.by_id[rule_id]

    def get(self, rule_id: str) -> Rule | None:
        """The rule ``rule_id``, or ``None`` when the catalogue has no such rule."""
        return self.by_id.get(rule_id)


def _words(text: str) -> str:
    return " ".join(text.split())


def clause_quoted(section: Section, quote: str) -> str | None:
    """The clause of ``section`` that ``quote`` is part of (spacing aside), or ``None``."""
    wanted = _words(quote)
    return next((c for c in section.clauses if wanted and wanted in _words(c)), None)


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads((specs_dir() / "rules.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


@functools.lru_cache(maxsize=4)
def load_catalogue(path: Path | None = None) -> Catalogue:
    """The catalogue at ``path`` (default: the shipped ``specs/rules.yaml``), read once.

    Raises :class:`UsageError` naming the file, the line and the rule of a problem: not the
    catalogue's shape, a gate rule without a documented clause, or a quote that is not part
    of any clause of the section it names.
    """
    import yaml

    path = path if path is not None else specs_dir() / "rules.yaml"
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.load(text, Loader=loader)  # noqa: S506
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise UsageError(f"{path}: not a rule catalogue ({error})") from None
    errors = sorted(_validator().iter_errors(data), key=lambda e: -len(e.absolute_path))
    if errors:
        problem = errors[0]
        at = list(problem.absolute_path)
        raise _located(path, text, at, data, _message(problem, data, at))
    specification = tuple(
        Section(str(s["section"]), str(s["title"]), tuple(_words(c) for c in s["clauses"]))
        for s in data["specification"]
    )
    catalogue = Catalogue(
        tuple(_rule(entry) for entry in data["rules"]), specification=specification
    )
    for index, rule in enumerate(catalogue.rules):
        if rule.source is None:
            continue
        for number, quote, below in rule.source.quoting():
            where: list[str | int] = ["rules", index, "source", *below[:-1]]
            section = catalogue.sections.get(number)
            if section is None:
                message = f"source names section {number}, which the specification lacks"
                raise _located(path, text, where, data, f"rule {rule.id}: {message}")
            if clause_quoted(section, quote) is None:
                message = (
                    f"rule {rule.id}: source quotes {quote!r}, which is not part of any clause "
                    f"of section {section.number} ({section.title})"
                )
                raise _located(path, text, where, data, message)
    return catalogue


def _source(raw: Mapping[str, Any]) -> Source:
    quotes = raw["clause"] if isinstance(raw["clause"], list) else [raw["clause"]]
    return Source(
        clauses=tuple(_words(str(q)) for q in quotes),
        section=str(raw.get("section", "")),
        convention=str(raw.get("convention", "")),
        also=tuple(_source(other) for other in raw.get("also", ())),
    )


def _rule(entry: Mapping[str, Any]) -> Rule:
    return Rule(
        id=str(entry["id"]),
        title=str(entry["title"]),
        level=Level(entry["level"]),
        sections=tuple(str(s) for s in entry["sections"]),
        summary=str(entry["summary"]).strip(),
        source=_source(entry["source"]),
    )


def _message(problem: Any, data: Any, where: Sequence[str | int]) -> str:
    rule = ""
    if len(where) >= 2 and where[0] == "rules" and isinstance(where[1], int):
        entry = data["rules"][where[1]]
        rule = (
            f"rule {entry.get('id', '#' + str(where[1] + 1))}: " if isinstance(entry, dict) else ""
        )
    tail = [str(part) for part in where[2:]] if rule else [str(part) for part in where]
    at = f"{'.'.join(tail)}: " if tail else ""
    if tail == ["source"] and problem.validator in {"oneOf", "additionalProperties", "required"}:
        level = data["rules"][where[1]].get("level")
        if level in set(Level) and Level(level) is Level.GATE:
            return (
                f"{rule}a gate rule's source is a section of the specification and the clause "
                "it enforces ({section: '4.3', clause: '...'})"
            )
        return f"{rule}source is {{section, clause}} or {{convention, clause}}"
    if problem.validator == "required":
        missing = [key for key in problem.validator_value if key not in problem.instance]
        return f"{rule}{at}missing {missing[0]!r}" if missing else f"{rule}{at}{problem.message}"
    if problem.validator == "additionalProperties":
        return f"{rule}{at}unknown key: {problem.message}"
    return f"{rule}{at}{problem.message}"


def _located(
    path: Path, text: str, where: Sequence[str | int], data: Any, message: str
) -> UsageError:
    from patgate.scenario.source import read_documents

    try:
        line = read_documents(text, str(path))[0].line_of(where)
    except (UsageError, IndexError):
        line = 1
    return UsageError(f"{path}:{line}: {message}")
