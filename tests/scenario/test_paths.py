"""Paths into JSON bodies."""

from __future__ import annotations

import pytest

from patgate.scenario.paths import PathError, PathMissing, parse_path, resolve_path

BODY = {
    "data": {
        "viewer": {
            "personalAccessTokens": [
                {"id": "a=", "token": "t1", "lastUsedDate": None},
                {"id": "b/c", "token": "t2", "lastUsedDate": "2023-11-21T14:36:00.916Z"},
            ]
        }
    }
}


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("", BODY),
        ("data.viewer.personalAccessTokens[0].token", "t1"),
        ("data.viewer.personalAccessTokens[-1].token", "t2"),
        ("data.viewer.personalAccessTokens[*].token", ["t1", "t2"]),
        ("data.viewer.personalAccessTokens[id=b/c].token", "t2"),
        ("data.viewer.personalAccessTokens[id=a=].lastUsedDate", None),
        ("data.viewer.personalAccessTokens[lastUsedDate=null].id", "a="),
    ],
)
def test_a_path_reads_the_value(path: str, value: object) -> None:
    assert resolve_path(BODY, path) == value


@pytest.mark.parametrize(
    "path",
    [
        "data.nothing",
        "data.viewer.personalAccessTokens[2]",
        "data.viewer.personalAccessTokens[id=zz].token",
        "data.viewer.id[0]",
        "data.viewer.personalAccessTokens.token",
    ],
)
def test_a_path_to_nothing_raises_missing(path: str) -> None:
    with pytest.raises(PathMissing):
        resolve_path(BODY, path)


@pytest.mark.parametrize("path", ["a..b", "a.", ".a", "a[", "a[x]", "a]b", "a[0]b"])
def test_a_malformed_path_is_refused(path: str) -> None:
    with pytest.raises(PathError):
        parse_path(path)


def test_a_wildcard_path_is_many() -> None:
    assert parse_path("a[*].b").many
    assert not parse_path("a[0].b").many
