"""Target keys: world file < PATGATE_* variables < flags, and what a bad source says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from patgate.errors import UsageError
from patgate.guards.redaction import Secret
from patgate.runner.connection.config import TargetConfig, resolve_target_config


def _world(tmp_path: Path, data: object, name: str = "w.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if name.endswith(".json") else str(data), encoding="utf-8")
    return path


def test_no_source_means_the_embedded_fake() -> None:
    assert resolve_target_config(None, {"HOME": "/root", "PATGATE_SCENARIOS": "x"}, {}) is None


def test_an_unknown_key_of_the_world_file_is_refused_with_the_nearest_one(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown key 'favourite_colour'"):
        resolve_target_config(
            _world(tmp_path, {"base_url": "https://x.example", "favourite_colour": "b"}), {}, {}
        )
    misspelt = _world(tmp_path, {"base_url": "https://x.example", "member_tokn": "t"})
    with pytest.raises(UsageError, match="did you mean 'member_token'"):
        resolve_target_config(misspelt, {}, {})


def test_flags_beat_variables_which_beat_the_world_file(tmp_path: Path) -> None:
    world = _world(
        tmp_path,
        {
            "base_url": "https://file.example",
            "auth_url": "https://auth.file.example",
            "admin_token": "from-file",
        },
    )
    environ = {"PATGATE_AUTH_URL": "https://auth.env.example", "PATGATE_ADMIN_TOKEN": "from-env"}
    config = resolve_target_config(world, environ, {"admin_token": "from-flag", "base_url": None})
    assert config is not None
    assert {key: config.text(key) for key in config.keys} == {
        "base_url": "https://file.example",
        "auth_url": "https://auth.env.example",
        "admin_token": "from-flag",
    }


def test_defaults_of_graphql_url_and_pat_prefix() -> None:
    config = TargetConfig({"base_url": "https://api.example"})
    assert config.get("graphql_url") == "https://api.example/graphql"
    assert config.get("pat_prefix") == "amp_pat_"
    assert config.get("member_token") is None


def test_a_yaml_world_file_with_documents(tmp_path: Path) -> None:
    text = (
        "base_url: https://api.example/\n"
        "documents:\n  delete_token: 'mutation($id: ID!) { deletePersonalAccessToken(input: "
        "{id: $id}) { ok } }'\n"
    )
    config = resolve_target_config(_world(tmp_path, text, "w.yaml"), {}, {})
    assert config is not None
    assert config.keys == {"base_url": "https://api.example"}
    assert "deletePersonalAccessToken" in config.documents["delete_token"]


def test_secrets_are_held_opaque_and_revealed_only_on_request() -> None:
    config = TargetConfig({"base_url": "https://api.example", "client_secret": "s3cr3t-value"})
    assert "s3cr3t-value" not in repr(config)
    assert "s3cr3t-value" not in repr(config.keys)
    assert isinstance(config.get("client_secret"), Secret)
    assert [secret.reveal() for secret in config.secrets()] == ["s3cr3t-value"]
    assert config.text("client_secret") == "s3cr3t-value"
    assert config.key_holding("s3cr3t-value") == "client_secret"
    assert config.key_holding("something-else") is None


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("w.json", "{not json", "w.json:1: not valid JSON"),
        ("w.yaml", "base_url: [unclosed", "w.yaml:2: not valid YAML"),
        ("w.json", "[1, 2]", "must hold a mapping of target keys"),
        ("w.json", '{"base_url": 12}', "base_url must be a string, not int"),
        ("w.json", '{"base_url": "ftp://x"}', "base_url must be an absolute http(s) URL"),
        ("w.json", '{"base_url": "http://api.example"}', "plain http is refused except on"),
        ("w.json", '{"admin_token": "x"}', "a live target needs base_url or auth_url"),
        ("w.json", '{"base_url": "https://a", "documents": {"list": "q"}}', "not one of"),
        ("w.json", '{"base_url": "https://a", "documents": {"viewer": 1}}', "GraphQL text"),
    ],
)
def test_a_bad_world_file_is_a_usage_error(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve_target_config(path, {}, {})


def test_a_missing_world_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"the world file .*absent\.json: cannot read"):
        resolve_target_config(tmp_path / "absent.json", {}, {})


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]"])
def test_plain_http_is_allowed_on_loopback(host: str) -> None:
    config = resolve_target_config(None, {}, {"base_url": f"http://{host}:8080"})
    assert config is not None
    assert config.keys["base_url"] == f"http://{host}:8080"


def test_a_target_is_marked_production_by_its_file_or_a_variable(tmp_path: Path) -> None:
    world = _world(tmp_path, {"base_url": "https://api.example", "production": True})
    config = resolve_target_config(world, {}, {})
    assert config is not None
    assert config.production
    plain = _world(tmp_path, {"base_url": "https://api.example"}, "plain.json")
    config = resolve_target_config(plain, {"PATGATE_PRODUCTION": "yes"}, {})
    assert config is not None
    assert config.production
    config = resolve_target_config(world, {"PATGATE_PRODUCTION": "0"}, {})
    assert config is not None
    assert not config.production
    with pytest.raises(UsageError, match="PATGATE_PRODUCTION must be true or false"):
        resolve_target_config(plain, {"PATGATE_PRODUCTION": "maybe"}, {})


def test_a_url_with_user_information_is_refused_without_echoing_it() -> None:
    with pytest.raises(UsageError) as raised:
        resolve_target_config(None, {}, {"base_url": "https://me:s3cr3t-value@api.example"})
    assert "must not hold user information" in str(raised.value)
    assert "s3cr3t-value" not in str(raised.value)


def test_a_pat_prefix_no_token_can_start_with_is_refused_when_the_target_is_read() -> None:
    with pytest.raises(UsageError, match=r"pat_prefix must be letters.*'a b'"):
        resolve_target_config(
            None, {"PATGATE_PAT_PREFIX": "a b"}, {"base_url": "https://x.example"}
        )


def test_the_run_is_handed_the_redactor_and_pat_grammar_the_config_built() -> None:
    from patgate.runner.connection.config import LiveTarget
    from patgate.runner.context import RunContext, RunOptions

    config = TargetConfig(
        {"base_url": "https://x.example", "client_secret": "s3cret-value", "pat_prefix": "acme_"}
    )
    context = RunContext(LiveTarget(config), RunOptions())
    try:
        # The config's secrets are known, and PATs of its prefix are hidden and watched.
        pat = "acme_" + "A" * 8 + "." + "B" * 12
        assert context.redact("sent s3cret-value and " + pat) == "sent [REDACTED] and [REDACTED]"
        context.revealed.add(pat, "a create")
        assert context.revealed.learn("x acme_CCCCCCCC.DDDDDDDDDDDD y", "a listing") == [
            "acme_CCCCCCCC.DDDDDDDDDDDD"
        ]
        assert config.pat.shape.fullmatch(pat)
    finally:
        context.close()
