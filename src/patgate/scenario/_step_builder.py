"""Building one step of a scenario from its validated mapping, with the checks a schema
cannot make: names defined before use, rule ids, paths, expressions and schema files."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from patgate.errors import ScenarioError
from patgate.guards.supplied_files import FileRefused, load_json
from patgate.scenario.check_kinds import CHECKS
from patgate.scenario.expressions import ExpressionError, expression_names, template_names
from patgate.scenario.model import (
    BUILTIN_NAMES,
    TARGET_KEYS,
    Capture,
    Expectation,
    Request,
    Step,
)
from patgate.scenario.paths import PathError, parse_path
from patgate.scenario.source import SourceDocument
from patgate.scenario.step_kinds import STEP_KINDS

__all__ = ["StepBuilder", "describe_where"]

_EXPRESSION_KEYS = ("repeat", "wait", "assume")
_TEMPLATE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
_ALWAYS_KNOWN = frozenset(TARGET_KEYS) | {"run_id", "new_name", "random_pat", "missing_id"}


def describe_where(where: Sequence[str | int]) -> str:
    """``steps[2].expect[0]: `` for the start of a message, or nothing at the top."""
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return f"{text}: " if text else ""


class StepBuilder:
    """Builds the steps of one scenario in order, tracking what is defined so far."""

    def __init__(
        self, doc: SourceDocument, rules: tuple[str, ...], schema_folders: Sequence[Path]
    ) -> None:
        self.doc = doc
        self.rules = rules
        self.schema_folders = tuple(schema_folders)
        self.captured: set[str] = set()
        self.appends: set[str] = set()
        self.target_keys: set[str] = set()
        self.writes = False
        self.creates = False
        """A step creates something (a token, or a write the ledger cannot track): unlike a
        delete, which the ledger refuses unless the run made the id, that always writes."""
        self.untracked_writes = False
        self.waits = False
        self.uses_control = False
        self.in_cleanup = False

    def error(self, message: str, where: Sequence[str | int]) -> ScenarioError:
        """A located :class:`ScenarioError` naming ``where`` in the message."""
        return self.doc.error(f"{describe_where(where)}{message}", where)

    # -- the step ------------------------------------------------------------------------------

    def step(self, raw: Mapping[str, Any], where: list[str | int]) -> Step:
        """The typed step of ``raw`` (already valid under the JSON Schema) at ``where``."""
        kinds = [key for key in STEP_KINDS.names() if key in raw]
        if len(kinds) != 1:
            found = f" (found {', '.join(kinds)})" if kinds else ""
            every = ", ".join(STEP_KINDS.names())
            raise self.error(f"a step holds exactly one of {every}{found}", where)
        if "repeat" in raw and "for_each" in raw:
            raise self.error("a step has repeat or for_each, not both", where)
        loop_names: set[str] = set()
        if "repeat" in raw:
            self.names(self.expression(raw["repeat"], [*where, "repeat"]), [*where, "repeat"])
            loop_names = {"index"}
        if "for_each" in raw:
            self.names({raw["for_each"]}, [*where, "for_each"])
            loop_names = {"index", "item"}
        rule = raw.get("rule", self.rules[0])
        self._rule(rule, [*where, "rule"])
        self._references(raw, where, loop_names)
        assume, assume_reason = self._assume(raw, where)
        step = Step(
            name=raw.get("name")
            or f"{'cleanup' if self.in_cleanup else 'step'} {int(where[-1]) + 1}",
            line=self.doc.line_of(where),
            kind=kinds[0],
            request=self._request(kinds[0], raw, [*where, kinds[0]], loop_names),
            rule=rule,
            bearer=raw.get("bearer"),
            basic=(raw["basic"][0], raw["basic"][1]) if "basic" in raw else None,
            headers=dict(raw.get("headers", {})),
            expect=tuple(
                self._expectation(item, rule, [*where, "expect", i])
                for i, item in enumerate(raw.get("expect", ()))
            ),
            capture=tuple(
                self._capture(name, spec, [*where, "capture", name])
                for name, spec in raw.get("capture", {}).items()
            ),
            repeat=raw.get("repeat"),
            for_each=raw.get("for_each"),
            assume=assume,
            assume_reason=assume_reason,
        )
        for capture in step.capture:
            self.captured.add(capture.name)
            if capture.append:
                self.appends.add(capture.name)
        return step

    def created_name(self, value: Any, where: list[str | int]) -> None:
        """A token the scenario creates is named ``${new_name}`` (a suffix may follow), so
        that the ledger can find it again; anything else is an authoring mistake."""
        if not (isinstance(value, str) and value.startswith("${new_name}")):
            raise self.error(
                f"a created token's name starts with ${{new_name}} (so that the run's ledger "
                f"can find it again), got {value!r}",
                where,
            )

    def deleted_id(self, value: Any, where: list[str | int]) -> None:
        """A delete names a value the run knows (a captured id, ``${missing_id}``): a literal
        id is a token the run did not create, which it never deletes."""
        if not (isinstance(value, str) and _TEMPLATE.search(value)):
            raise self.error(
                "a delete names the id of a token the run created (a captured ${id}) or "
                f"${{missing_id}}; a literal id would be refused, got {value!r}",
                where,
            )

    def _assume(self, raw: Mapping[str, Any], where: list[str | int]) -> tuple[str | None, str]:
        spec = raw.get("assume")
        if spec is None:
            return None, ""
        text = spec if isinstance(spec, str) else spec["that"]
        # Evaluated once, before any iteration: the loop names are not defined yet.
        self.names(self.expression(text, [*where, "assume"]), [*where, "assume"])
        reason = spec.get("otherwise", "") if isinstance(spec, dict) else ""
        return text, reason or f"assumption not met: {text}"

    # -- requests ------------------------------------------------------------------------------

    def _request(
        self, kind: str, raw: Mapping[str, Any], where: list[str | int], loop_names: set[str]
    ) -> Request:
        if "args" in raw and not (kind == "graphql" and isinstance(raw[kind], str)):
            raise self.error("args go with a named graphql operation", [*where[:-1], "args"])
        return STEP_KINDS[kind].build(self, raw[kind], raw, where, loop_names)

    # -- expectations and captures -------------------------------------------------------------

    def _expectation(
        self, item: Mapping[str, Any], step_rule: str, where: list[str | int]
    ) -> Expectation:
        check = next(name for name in CHECKS.names() if name in item)
        rule = item.get("rule", step_rule)
        self._rule(rule, [*where, "rule"])
        options = {k: v for k, v in item.items() if k not in (check, "rule")}
        argument = CHECKS[check].build(self, item[check], options, [*where, check])
        for key in ("matches",):
            if isinstance(options.get(key), str) and not _TEMPLATE.search(options[key]):
                try:
                    re.compile(options[key])
                except re.error as error:
                    raise self.error(f"not a regular expression: {error}", [*where, key]) from None
        return Expectation(check, argument, options, rule, self.doc.line_of(where))

    def schema(self, argument: Any, where: list[str | int]) -> Any:
        """A schema file's path (looked up in the schema folders), or an inline schema checked."""
        if isinstance(argument, dict):
            from jsonschema import validators
            from jsonschema.exceptions import SchemaError

            try:
                validators.validator_for(argument).check_schema(argument)
            except SchemaError as error:
                raise self.error(f"not a valid JSON Schema: {error.message}", where) from None
            return argument
        for folder in self.schema_folders:
            candidate = folder / argument
            if candidate.is_file():
                try:
                    load_json(candidate)
                except FileRefused as error:
                    raise self.error(f"the schema file {error}", where) from None
                return str(candidate)
        folders = " or ".join(str(folder) for folder in self.schema_folders)
        raise self.error(f"no schema file {argument!r} in {folders}", where)

    def _capture(self, name: str, spec: Any, where: list[str | int]) -> Capture:
        if name in TARGET_KEYS or name in BUILTIN_NAMES:
            raise self.error(f"{name!r} is a target key or built-in name; pick another", where)
        if isinstance(spec, str):
            spec = {"path": spec}
        path = spec.get("path", spec.get("count", ""))
        self.path(path, where)
        return Capture(
            name=name,
            path=path,
            count="count" in spec,
            append=bool(spec.get("append", False)),
            optional=bool(spec.get("optional", False)),
            line=self.doc.line_of(where),
        )

    # -- names, rules, paths, expressions -----------------------------------------------------

    def _rule(self, rule: str, where: list[str | int]) -> None:
        if rule not in self.rules:
            raise self.error(
                f"rule {rule!r} is not among this scenario's rules ({', '.join(self.rules)})",
                where,
            )

    def path(self, text: str, where: list[str | int]) -> None:
        """Refuse a path (templates allowed) that does not parse."""
        try:
            parse_path(_TEMPLATE.sub("x", text))
        except PathError as error:
            raise self.error(str(error), where) from None

    def expression(self, text: str | int, where: list[str | int]) -> set[str]:
        """The names an expression refers to; a located error when it does not parse."""
        try:
            return expression_names(text)
        except ExpressionError as error:
            raise self.error(str(error), where) from None

    def _references(
        self, raw: Mapping[str, Any], where: list[str | int], loop_names: set[str]
    ) -> None:
        for path, text in _strings(raw, where):
            if path[len(where)] in _EXPRESSION_KEYS or path[-1] == "advance_clock":
                continue
            self.names(set(template_names(text)), path, loop_names)

    def names(
        self, names: set[str], where: list[str | int], loop_names: set[str] | None = None
    ) -> None:
        """Refuse a name that is not defined at this point of the scenario."""
        known = _ALWAYS_KNOWN | self.captured | (loop_names or set())
        for name in sorted(names):
            if name in known:
                if name in TARGET_KEYS:
                    self.target_keys.add(name)
                continue
            if name in ("index", "item"):
                raise self.error(f"${{{name}}} is only defined inside repeat or for_each", where)
            later = "" if self.in_cleanup else " by an earlier step"
            raise self.error(
                f"unknown name {name!r}: not a target key, a built-in name or a value "
                f"captured{later}",
                where,
            )


def _strings(value: Any, where: list[str | int]) -> Iterator[tuple[list[str | int], str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(item, [*where, str(key)])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, [*where, index])
