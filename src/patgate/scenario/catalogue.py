"""The rule catalogue, ``specs/rules.yaml``, as typed values."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from patgate.errors import UsageError
from patgate.levels import Level
from patgate.resources import specs_dir

__all__ = ["Catalogue", "Level", "Rule", "load_catalogue"]


@dataclass(frozen=True)
class Rule:
    """One documented rule: a gate fails the run, an advisory rule only warns."""

    id: str
    title: str
    level: Level
    sections: tuple[str, ...]
    summary: str

    def __post_init__(self) -> None:
        # A level given as its text ("gate") is taken as the enum member.
        object.__setattr__(self, "level", Level(self.level))

    @property
    def is_gate(self) -> bool:
        """Whether a failure of this rule fails the run."""
        return self.level is Level.GATE


@dataclass(frozen=True)
class Catalogue:
    """Every rule, in the catalogue's order."""

    rules: tuple[Rule, ...]

    @functools.cached_property
    def by_id(self) -> Mapping[str, Rule]:
        """Rule id -> rule."""
        return {rule.id: rule for rule in self.rules}

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.by_id

    def __getitem__(self, rule_id: str) -> Rule:
        return self.by_id[rule_id]


@functools.lru_cache(maxsize=4)
def load_catalogue(path: Path | None = None) -> Catalogue:
    """The catalogue at ``path`` (default: the shipped ``specs/rules.yaml``), read once."""
    import yaml

    path = path if path is not None else specs_dir() / "rules.yaml"
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506
        rules = tuple(
            Rule(
                id=str(entry["id"]),
                title=str(entry["title"]),
                level=_level(entry["level"], path, entry["id"]),
                sections=tuple(str(s) for s in entry.get("sections", ())),
                summary=str(entry.get("summary", "")).strip(),
            )
            for entry in data["rules"]
        )
    except (OSError, yaml.YAMLError, KeyError, TypeError) as error:
        raise UsageError(f"{path}: not a rule catalogue ({error})") from None
    return Catalogue(rules)


def _level(value: object, path: Path, rule_id: object) -> Level:
    try:
        return Level(value)
    except ValueError:
        raise UsageError(f"{path}: rule {rule_id} has level {value!r}") from None
