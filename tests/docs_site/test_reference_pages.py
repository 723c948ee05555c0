"""Each generated reference page has an entry for everything its source declares.

Each page is rendered from the code or a spec (docs/reference_pages); each test here lists
what the source declares, finds what the page lacks, and its twin adds a new item to the
source: the page rendered before lacks it (the check sees it), the page rendered after has
it (the generator picks it up by itself).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from docs.reference_pages import (
    SPECS,
    api_page,
    cli_page,
    control_page,
    errors_page,
    profile_page,
    rules_page,
    scenario_page,
    source,
)

# Through the generator's one table of module paths (docs/reference_pages SOURCES): a module
# that moves is fixed there, once, for the pages and these tests.
patgate = source("package")
cli = source("cli")
errors = source("errors")
pytest_plugin = source("plugin")
CHECKS = source("checks").CHECKS
CONTROL_ACTIONS = source("control_actions").CONTROL_ACTIONS
FUNCTIONS = source("expressions").FUNCTIONS
STEP_KINDS = source("step_kinds").STEP_KINDS
Entry = type(next(iter(STEP_KINDS)))
Registry = type(STEP_KINDS)

ROOT = Path(__file__).resolve().parents[2]


def _section(page: str, heading: str) -> str:
    """The text of ``page`` under ``heading`` up to the next heading of its level."""
    level = heading.split(" ", 1)[0]
    start = page.index(f"\n{heading}\n")
    end = page.find(f"\n{level} ", start + len(heading) + 2)
    return page[start : end if end != -1 else len(page)]


def _first_cells(text: str) -> list[str]:
    return re.findall(r"^\| `([^`]*)`", text, re.MULTILINE)


# -- command line ----------------------------------------------------------------------------


def _arguments(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            yield action


def missing_from_cli_page(page: str, parser: argparse.ArgumentParser) -> list[str]:
    """Each command, flag, default and help of ``parser`` that ``page`` does not show."""
    missing = []
    commands = cli_page.subcommands(parser)
    for name, sub in [("", parser), *commands.items()]:
        heading = f"## `patgate {name}`"
        if name and heading not in page:
            missing.append(f"command {name}")
            continue
        section = _section(page, heading) if name else page.split("\n## ", 1)[0]
        shown = " ".join(_first_cells(section))
        for action in _arguments(sub):
            names = action.option_strings or [cli_page._invocation(sub, action)]
            label = f"{name or 'patgate'} {names[-1]}"
            if any(str(n) not in shown for n in names):
                missing.append(label)
                continue
            row = next(
                r
                for r in section.splitlines()
                if r.startswith(f"| {cli_page.code(cli_page._invocation(sub, action))}")
            )
            help_text = cli_page.cell(cli_page._help(sub, action))
            if help_text and help_text not in row:
                missing.append(f"{label} help")
            default = cli_page._default(action)
            if default and cli_page.cell(default) not in row:
                missing.append(f"{label} default")
    return missing


def _exit_codes_returned_by_main() -> set[int]:
    tree = ast.parse(Path(cli.__file__).read_text(encoding="utf-8"))
    main = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    return {
        node.value.value
        for node in ast.walk(main)
        if isinstance(node, ast.Return)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, int)
    }


def missing_exit_codes(page: str) -> list[int]:
    """Exit codes ``patgate.cli.main`` returns or an error class sets, without a row."""
    table = _section(page, "## Exit codes")
    shown = {int(code) for code in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)}
    codes = _exit_codes_returned_by_main()
    codes |= {getattr(c, "exit_code", 1) for c in errors_page.error_classes()}
    return sorted(codes - shown)


def test_the_cli_page_shows_every_command_flag_default_help_and_exit_code() -> None:
    page = cli_page.render()
    assert missing_from_cli_page(page, cli.build_parser()) == []
    assert missing_exit_codes(page) == []
    assert {2, 130, 141} <= _exit_codes_returned_by_main()  # else the command's own


def _with_new_flag(monkeypatch: pytest.MonkeyPatch) -> argparse.ArgumentParser:
    build = cli.build_parser

    def build_parser() -> argparse.ArgumentParser:
        parser = build()
        cli_page.subcommands(parser)["rules"].add_argument(
            "--brand-new-flag", default="soon", help="a flag the test adds (%(default)s)"
        )
        return parser

    monkeypatch.setattr(cli, "build_parser", build_parser)
    return build_parser()


def test_twin_a_new_flag_is_missing_from_the_old_page_and_on_the_new_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = cli_page.render()
    parser = _with_new_flag(monkeypatch)
    assert missing_from_cli_page(before, parser) == ["rules --brand-new-flag"]
    after = cli_page.render()
    assert missing_from_cli_page(after, parser) == []
    assert "a flag the test adds (soon)" in after


def test_twin_a_new_exit_code_of_main_is_missing_from_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = cli_page.render()
    monkeypatch.setitem(cli_page.MAIN_EXIT_CODES, 77, "a code the test adds")
    assert "| 77 |" in cli_page.render()
    monkeypatch.setattr(
        "tests.docs_site.test_reference_pages._exit_codes_returned_by_main", lambda: {0, 77}
    )
    assert missing_exit_codes(page) == [77]


# -- Python API and the pytest plugin --------------------------------------------------------


def missing_from_api_page(page: str) -> list[str]:
    """Exports, fixtures, markers and options the page has no entry for."""
    missing = [f"export {n}" for n in patgate.__all__ if f"\n::: patgate.{n}\n" not in page]
    missing += [f"fixture {n}" for n in api_page.fixtures() if f"#### `{n}`" not in page]
    markers = _first_cells(_section(page, "### Markers"))
    missing += [
        f"marker {m}"
        for m in api_page.markers()
        if api_page.code(f"@pytest.mark.{m}")[1:-1] not in markers
    ]
    ini, flags = api_page.options()
    shown = " ".join(_first_cells(page))
    missing += [f"ini {name}" for name in ini if name not in shown]
    missing += [f"option {names[0]}" for names, _, _ in flags if names[0] not in shown]
    return missing


def test_the_api_page_documents_every_export_fixture_marker_and_option() -> None:
    page = api_page.render()
    assert missing_from_api_page(page) == []
    assert "#### `patgate_fake`" in page
    assert "\n::: patgate.Fake\n" in page


def test_twin_new_exports_and_plugin_registrations_show_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = api_page.render()

    class BrandNew:
        """A name the test exports."""

    def patgate_brand_new() -> int:
        """A fixture the test registers."""
        return 1

    monkeypatch.setattr(patgate, "__all__", [*patgate.__all__, "BrandNew"])
    monkeypatch.setattr(patgate, "BrandNew", BrandNew, raising=False)
    monkeypatch.setattr(
        pytest_plugin, "patgate_brand_new", pytest.fixture(patgate_brand_new), raising=False
    )
    configure, addoption = pytest_plugin.pytest_configure, pytest_plugin.pytest_addoption

    def pytest_configure(config: Any) -> None:
        configure(config)
        config.addinivalue_line("markers", "patgate_brand_new: a marker the test adds")

    def pytest_addoption(parser: Any) -> None:
        addoption(parser)
        parser.addini("patgate_brand_new_ini", "an ini option the test adds")
        parser.getgroup("patgate").addoption("--patgate-brand-new", help="a flag the test adds")

    monkeypatch.setattr(pytest_plugin, "pytest_configure", pytest_configure)
    monkeypatch.setattr(pytest_plugin, "pytest_addoption", pytest_addoption)
    assert missing_from_api_page(before) == [
        "export BrandNew",
        "fixture patgate_brand_new",
        "marker patgate_brand_new",
        "ini patgate_brand_new_ini",
        "option --patgate-brand-new",
    ]
    assert missing_from_api_page(api_page.render()) == []


# -- scenario format -------------------------------------------------------------------------


def missing_from_scenario_page(page: str, schema: dict[str, Any]) -> list[str]:
    """Keys, step kinds, checks, control actions and functions without an entry."""
    missing = []
    for heading, names in (
        ("## A scenario's keys", schema["properties"]),
        ("## A step's keys", schema["$defs"]["step"]["properties"]),
        ("## Step kinds", source("step_kinds").STEP_KINDS.names()),
        ("## Checks", source("checks").CHECKS.names()),
        ("## Control actions", source("control_actions").CONTROL_ACTIONS.names()),
    ):
        shown = _first_cells(_section(page, heading))
        missing += [f"{heading[3:]}: {name}" for name in names if name not in shown]
    expressions = _section(page, "## Expressions")
    missing += [f"function {name}" for name in FUNCTIONS if f"`{name}`" not in expressions]
    return missing


def _scenario_schema() -> dict[str, Any]:
    return json.loads(SPECS["scenario"].read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_scenario_page_lists_every_key_step_kind_check_action_and_function() -> None:
    assert missing_from_scenario_page(scenario_page.render(), _scenario_schema()) == []


def _grown(registry: Any, entry: Any) -> Any:
    """A copy of ``registry`` with ``entry`` added (the shipped registry stays as it is)."""
    grown = Registry(registry.what)
    for existing in registry:
        grown.add(existing)
    grown.add(entry)
    return grown


def test_twin_new_vocabulary_shows_up_on_the_scenario_page(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    before = scenario_page.render()
    for module, attribute, name in (
        ("step_kinds", "STEP_KINDS", "teleport"),
        ("checks", "CHECKS", "sparkles"),
        ("control_actions", "CONTROL_ACTIONS", "nap"),
    ):
        entry = Entry(name, {"type": "string"}, None, f"`{name}: x`", f"{name}, added by the test")
        monkeypatch.setattr(
            source(module), attribute, _grown(getattr(source(module), attribute), entry)
        )
    monkeypatch.setitem(FUNCTIONS, "brand_new", len)  # type: ignore[index]
    schema = _scenario_schema()
    schema["properties"]["brand_new_key"] = {"type": "string", "description": "added"}
    schema["$defs"]["step"]["properties"]["teleport"] = {"type": "string"}
    changed = tmp_path / "scenario.schema.json"
    changed.write_text(json.dumps(schema), encoding="utf-8")
    monkeypatch.setitem(SPECS, "scenario", changed)  # type: ignore[arg-type]
    assert missing_from_scenario_page(before, schema) == [
        "A scenario's keys: brand_new_key",
        "A step's keys: teleport",
        "Step kinds: teleport",
        "Checks: sparkles",
        "Control actions: nap",
        "function brand_new",
    ]
    assert missing_from_scenario_page(scenario_page.render(), schema) == []


# -- rules -----------------------------------------------------------------------------------


def missing_rules(page: str, rule_ids: list[str]) -> list[str]:
    """Rule ids without their section on the page."""
    return [rule for rule in rule_ids if f"\n## {rule}\n" not in page]


def test_the_rules_page_has_a_section_per_rule_with_its_source_and_scenarios() -> None:
    page = rules_page.render()
    ids = [rule.id for rule in source("catalogue").load_catalogue(SPECS["rules"])]
    assert missing_rules(page, ids) == []
    token_ok = _section(page, "## TOKEN-OK")
    assert "Source: spec 4.1" in token_ok
    assert "Covered by: `" in token_ok


def test_twin_a_new_rule_shows_up_on_the_rules_page(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    scenario = source("catalogue")
    Rule = scenario.Rule
    before = rules_page.render()
    load = scenario.load_catalogue

    def load_catalogue(path: Path | None = None) -> Any:
        catalogue = load(path)
        rule = Rule("BRAND-NEW", "A rule the test adds", "advisory", ("FACTS",), "Added.")
        return dataclasses.replace(catalogue, rules=(*catalogue.rules, rule))

    monkeypatch.setattr(scenario, "load_catalogue", load_catalogue)
    assert missing_rules(before, ["BRAND-NEW"]) == ["BRAND-NEW"]
    after = rules_page.render()
    assert missing_rules(after, ["BRAND-NEW"]) == []
    assert "Covered by: no scenario." in _section(after, "## BRAND-NEW")


# -- profile fields --------------------------------------------------------------------------


def missing_profile_fields(page: str, schema: dict[str, Any]) -> list[str]:
    """Fields of the profile schema without a row (with their description, when any)."""
    rows = {
        match.group(1): match.group(0)
        for match in re.finditer(r"^\| `([^`]*)` \|.*$", page, re.MULTILINE)
    }
    missing = []
    for path, fragment in profile_page.fields(schema):
        description = profile_page.cell(fragment.get("description", ""))
        if path not in rows or description not in rows[path]:
            missing.append(path)
    return missing


def _profile_schema() -> dict[str, Any]:
    return json.loads(SPECS["profile"].read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_profile_page_lists_every_field_with_its_default() -> None:
    page = profile_page.render()
    assert missing_profile_fields(page, _profile_schema()) == []
    shipped = json.loads(SPECS["default_profile"].read_text(encoding="utf-8"))
    visible = shipped["masked_token"]["visible_characters"]
    assert f"| `masked_token.visible_characters` | integer | `{visible}` |" in page


def test_twin_a_new_profile_field_shows_up(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    before = profile_page.render()
    schema = _profile_schema()
    schema["properties"]["masked_token"]["properties"]["sparkle"] = {
        "type": "boolean",
        "description": "A field the test adds.",
    }
    changed = tmp_path / "profile.schema.json"
    changed.write_text(json.dumps(schema), encoding="utf-8")
    monkeypatch.setitem(SPECS, "profile", changed)  # type: ignore[arg-type]
    assert missing_profile_fields(before, schema) == ["masked_token.sparkle"]
    assert missing_profile_fields(profile_page.render(), schema) == []


# -- errors ----------------------------------------------------------------------------------


def error_class_names(sources: list[Path]) -> set[str]:
    """Classes of ``sources`` that derive, by the names of their bases, from PatgateError."""
    bases: dict[str, set[str]] = {}
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names = {
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                }
                bases.setdefault(node.name, set()).update(names)
    found = {"PatgateError"}
    while grown := {name for name, of in bases.items() if of & found} - found:
        found |= grown
    return found


def missing_errors(page: str, names: set[str]) -> list[str]:
    """Error class names without their entry on the page."""
    return sorted(name for name in names if f"**`{name}`**" not in page)


def test_the_errors_page_has_every_error_class_of_the_source() -> None:
    names = error_class_names(sorted((ROOT / "src" / "patgate").rglob("*.py")))
    assert {"UsageError", "HttpRefusal", "AnswerUnread", "NotFound"} <= names
    page = errors_page.render()
    assert missing_errors(page, names) == []
    assert "**`UsageError`** (also `ValueError`)" in page
    assert "exit code 2" in page


def test_twin_a_new_error_class_shows_up(tmp_path: Path) -> None:
    before = errors_page.render()
    source = tmp_path / "new_error.py"
    source.write_text("class BrandNewError(errors.UsageError):\n    pass\n", encoding="utf-8")
    names = error_class_names([*(ROOT / "src" / "patgate").rglob("*.py"), source])
    assert missing_errors(before, names) == ["BrandNewError"]

    class BrandNewError(errors.UsageError):
        """An error the test adds."""

    try:
        after = errors_page.render()
    finally:
        del BrandNewError
        import gc

        gc.collect()  # out of PatgateError's subclasses again, for the other tests
    assert missing_errors(after, names) == []
    assert "    - **`BrandNewError`**: An error the test adds. (exit code 2;" in after


# -- control API -----------------------------------------------------------------------------


def missing_operations(page: str, document: dict[str, Any]) -> list[str]:
    """``METHOD path`` of each operation without its section."""
    return [
        f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method in control_page.METHODS
        if method in item and f"\n## `{method.upper()} {path}`\n" not in page
    ]


def test_the_control_api_page_has_every_path_and_method() -> None:
    page = control_page.render()
    document = control_page.load()
    assert missing_operations(page, document) == []
    assert "Request body (JSON):" in _section(page, "## `POST /users`")


def test_twin_a_new_control_path_shows_up(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    before = control_page.render()
    document = control_page.load()
    document["paths"]["/sparkles"] = {
        "post": {"summary": "Added by the test.", "responses": {"204": {"description": "Done."}}}
    }
    changed = tmp_path / "control-openapi.yaml"
    changed.write_text(yaml.safe_dump(document), encoding="utf-8")
    monkeypatch.setitem(SPECS, "control", changed)  # type: ignore[arg-type]
    assert missing_operations(before, document) == ["POST /sparkles"]
    assert missing_operations(control_page.render(), document) == []
