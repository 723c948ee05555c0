"""Loading a profile: the shipped default, partial profiles, and every way one is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from patgate.errors import UsageError
from patgate.fake.profile import (
    DEFAULT_PROFILE_PATH,
    DOCUMENTED,
    Profile,
    default_profile,
    load_profile,
)

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "specs" / "profile.schema.json").read_text(encoding="utf-8"))


def _clauses() -> set[str]:
    rules = yaml.safe_load((ROOT / "specs" / "rules.yaml").read_text(encoding="utf-8"))
    return {
        " ".join(clause.split())
        for section in rules["specification"]
        for clause in section["clauses"]
    }


def test_the_shipped_default_is_valid_complete_and_read_back_unchanged() -> None:
    shipped = yaml.safe_load(DEFAULT_PROFILE_PATH.read_text(encoding="utf-8"))
    Draft202012Validator(SCHEMA).validate(shipped)
    assert default_profile().as_document() == shipped
    assert set(shipped) == set(SCHEMA["properties"])  # every field is in the default
    assert load_profile(default_profile().as_document()) == default_profile()


def _descriptions_missing(schema: dict[str, Any], where: str) -> list[str]:
    missing = [] if "description" in schema else [where]
    for name, child in schema.get("properties", {}).items():
        missing += _descriptions_missing(child, f"{where}.{name}")
    return missing


def test_every_field_of_the_schema_says_what_it_is() -> None:
    assert _descriptions_missing(SCHEMA, "profile") == []


def test_a_partial_profile_keeps_the_default_for_what_it_leaves_out() -> None:
    profile = load_profile(
        {
            "profile_version": 1,
            "refusals": {"forbidden": {"status": 404}},
            "pages": {"maximum_size": 50},
        }
    )
    assert profile.refusals["forbidden"].status == 404
    assert profile.refusals["forbidden"].code == "FORBIDDEN"
    assert profile.refusals["not_found"] == default_profile().refusals["not_found"]
    assert (profile.default_page_size, profile.maximum_page_size) == (20, 50)
    assert profile != default_profile()
    assert not profile.is_default
    assert default_profile().is_default


def test_a_profile_file_loads_and_its_document_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "profile.yaml"
    path.write_text(
        "profile_version: 1\n"
        "delete_result:\n"
        "  {shape: object, object_type: DeleteResult, fields: {id: token_id, ok: true}}\n"
        "listing_order: name_ascending\n",
        encoding="utf-8",
    )
    profile = load_profile(path)
    assert profile.delete_result.is_object
    assert profile.delete_result.fields == (("id", "token_id"), ("ok", "true"))
    assert profile.listing_order == "name_ascending"
    assert profile.source == str(path)
    assert load_profile(profile.as_document()) == profile
    assert isinstance(load_profile(str(path)), Profile)


@pytest.mark.parametrize(
    ("document", "field", "clause"),
    [
        ({"token_cap": 6}, "token_cap: 6", "PATs per user: Up to 5"),
        ({"max_tokens_per_user": 10}, "max_tokens_per_user: 10", "PATs per user: Up to 5"),
        (
            {"masked_token": {"mask_width": 0}},
            "masked_token.mask_width: 0",
            "In listings only the start is returned",
        ),
        (
            {"masked_token": {"visible_characters": 22}},
            "masked_token.visible_characters: 22",
            "In listings only the start is returned",
        ),
        (
            {"masked_token": {"visible_characters": 0}},
            "masked_token.visible_characters: 0",
            "Match the masked token to the one used",
        ),
        (
            {"masked_token": {"mask_character": "#"}},
            "masked_token.mask_character: '#'",
            "replaced by asterisks",
        ),
        ({"masked_listings": False}, "masked_listings: False", "In listings only the start"),
        (
            {"admin_only_creation": False},
            "admin_only_creation: False",
            "Creating a token through the API requires organization admin permission",
        ),
        (
            {"date_precision": {"createdDate": "seconds"}},
            "date_precision.createdDate: 'seconds'",
            "ISO 8601 UTC timestamp with milliseconds",
        ),
        ({"pat_expires_in": 3600}, "pat_expires_in: 3600", "Lifetime of a PAT: No expiry"),
    ],
)
def test_a_profile_contradicting_a_documented_rule_is_refused_naming_field_and_clause(
    document: dict[str, Any], field: str, clause: str
) -> None:
    with pytest.raises(UsageError) as refused:
        load_profile({"profile_version": 1, **document})
    message = str(refused.value)
    assert field in message
    assert clause in message
    assert "contradicts a documented rule" in message


def test_the_documented_value_itself_is_accepted_and_changes_nothing() -> None:
    profile = load_profile({"profile_version": 1, "token_cap": 5, "admin_only_creation": True})
    assert profile == default_profile()


def test_every_quoted_clause_is_one_the_specification_holds() -> None:
    clauses = _clauses()
    for rule in DOCUMENTED:
        assert rule.clause.text in clauses, rule.clause


def test_an_unknown_field_names_the_nearest_known_one(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "profile_version: 1\nrefusals:\n  forbidden:\n    statsu: 401\n", encoding="utf-8"
    )
    with pytest.raises(
        UsageError,
        match=r"p\.yaml:4: unknown field 'refusals\.forbidden\.statsu'; "
        r"did you mean 'refusals\.forbidden\.status'\?",
    ):
        load_profile(path)
    with pytest.raises(UsageError, match="did you mean 'listing_order'"):
        load_profile({"profile_version": 1, "listing_ordr": "name_ascending"})


def test_a_wrong_type_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "profile_version: 1\n# the mask\nmasked_token:\n  visible_characters: eight\n",
        encoding="utf-8",
    )
    with pytest.raises(
        UsageError, match=r"p\.yaml:4: masked_token\.visible_characters must be an integer"
    ):
        load_profile(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("profile_version: 2\n", r":1: profile_version must be 1"),
        ("listing_order: created_ascending\n", r":1: missing 'profile_version'"),
        ("profile_version: 1\nlisting_order: newest\n", r":2: listing_order must be one of"),
        ("profile_version: 1\npages: {default_size: 200}\n", r":2: pages.default_size \(200\)"),
        ("profile_version: 1\n  bad: [\n", r":2: not valid YAML"),
        ("- a list\n", r":1: a profile is one mapping"),
    ],
)
def test_a_bad_file_is_a_usage_error_with_its_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError, match=expected):
        load_profile(path)


def test_a_missing_file_or_a_wrong_argument_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read"):
        load_profile(tmp_path / "absent.yaml")
    with pytest.raises(UsageError, match="a path or a mapping"):
        load_profile(42)  # type: ignore[arg-type]


def test_a_profile_file_changed_on_disk_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("profile_version: 1\nlisting_order: name_ascending\n", encoding="utf-8")
    assert load_profile(path).listing_order == "name_ascending"
    assert load_profile(path) is load_profile(path)  # read once while unchanged
    path.write_text("profile_version: 1\nlisting_order: created_descending\n", encoding="utf-8")
    assert load_profile(path).listing_order == "created_descending"
    path.write_text("profile_version: 1\nlisting_ordr: created_descending\n", encoding="utf-8")
    with pytest.raises(UsageError, match="did you mean"):
        load_profile(path)


def test_a_huge_file_or_an_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("profile_version: 1\n" + "#" * (1024 * 1024) + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"big\.yaml: is larger than 1 MiB"):
        load_profile(big)
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 9)]
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(
        "\n".join(levels) + "\nprofile_version: 1\nhubs:\n  fields: *a8\n", encoding="utf-8"
    )
    with pytest.raises(UsageError, match=r"bomb\.yaml:1: YAML anchors \(&a0\) are not accepted"):
        load_profile(bomb)
    deep = tmp_path / "deep.yaml"
    deep.write_text("profile_version: 1\nhubs: " + "[" * 100 + "]" * 100 + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"deep\.yaml:2: nested deeper than 16 levels"):
        load_profile(deep)
    wide = {"profile_version": 1, "hubs": {"fields": [[0] * 100] * 200}}
    with pytest.raises(UsageError, match="more than 10000 values"):
        load_profile(wide)


@pytest.mark.parametrize(
    ("delete_result", "expected"),
    [
        ({"shape": "object", "object_type": "Viewer"}, "'Viewer' is already a type"),
        ({"shape": "object", "object_type": "Boolean"}, "'Boolean' is already a type"),
        ({"fields": {"__typename": "token_id"}}, "delete_result.fields"),
        ({"fields": {"id": "everything"}}, "delete_result.fields.id must be one of"),
    ],
)
def test_a_delete_result_the_schema_cannot_take_is_refused(
    delete_result: dict[str, Any], expected: str
) -> None:
    with pytest.raises(UsageError, match=expected):
        load_profile({"profile_version": 1, "delete_result": delete_result})
