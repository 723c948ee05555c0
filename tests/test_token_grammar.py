"""One token grammar: what the fake mints, every other layer recognises and hides."""

from __future__ import annotations

import ast
import random
import re
import time
from pathlib import Path

import pytest

from patgate.basics.token_grammar import (
    ANY_PAT_SCAN,
    ANY_PAT_SHAPE,
    DEFAULT_PAT_PREFIX,
    JWT_SCAN,
    JWT_SHAPE,
    TokenScan,
    is_documented_pat,
    is_pat,
    pat_scan,
    pat_shape,
    split_pat,
    valid_prefix,
)
from patgate.fake.pat_format import PatFormat
from patgate.guards.redaction import REDACTED, Redactor

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "patgate"


@pytest.mark.parametrize("prefix", [DEFAULT_PAT_PREFIX, "acme_", "x-"])
def test_a_minted_value_is_a_pat_for_every_layer(prefix: str) -> None:
    minted = PatFormat(prefix).mint()
    assert is_pat(minted.value, prefix)
    assert pat_shape(prefix).fullmatch(minted.value)
    assert split_pat(minted.value, prefix) == tuple(minted.value[len(prefix) :].split("."))
    assert Redactor(prefix).redact(f"got {minted.value}!") == f"got {REDACTED}!"


@pytest.mark.parametrize(
    "value",
    ["amp_pat_abc", "amp_pat_.def", "amp_pat_abc.", "amp_pat_a b.c", "other_abc.def", 42, None],
)
def test_malformed_values_are_not_pats(value: object) -> None:
    assert not is_pat(value)


def test_prefixes_are_token_characters() -> None:
    assert [valid_prefix(p) for p in ("amp_pat_", "acme-", "", "a b_", "a.b_")] == [
        True,
        True,
        False,
        False,
        False,
    ]


def test_a_token_under_another_prefix_and_a_jwt_are_recognised() -> None:
    assert ANY_PAT_SHAPE.search("zz_pat_0VDx5anoRUK7.IqSKk8gASgZKhp")
    assert not ANY_PAT_SHAPE.search("my_pat_a.b")
    assert JWT_SHAPE.fullmatch("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")


def _string_constants(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def test_the_grammar_and_the_prefix_are_written_once() -> None:
    copies = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "token_grammar.py":
            continue
        for text in _string_constants(path):
            if text == DEFAULT_PAT_PREFIX or "eyJ[" in text or r"\.[A-Za-z0-9_-]" in text:
                copies.append(f"{path.relative_to(PACKAGE)}: {text[:40]!r}")
    assert copies == []


# -- finding tokens in untrusted text: the scans ------------------------------------------------

_FRAGMENTS = ("a", "b1", "_", "-", ".", " ", "eyJ", "eyJa", "amp_pat_", "x_pat_", "_pat_", "9")
_FRAGMENTS += ("abcdefg", "/", "\u00e9", "acme_")


def _pairs() -> list[tuple[re.Pattern[str], TokenScan]]:
    return [
        (JWT_SHAPE, JWT_SCAN),
        (ANY_PAT_SHAPE, ANY_PAT_SCAN),
        (pat_shape(), pat_scan()),
        (pat_shape("acme_"), pat_scan("acme_")),
        (pat_shape("x-"), pat_scan("x-")),
    ]


@pytest.mark.parametrize("padding", [0, 3000], ids=["dense", "sparse"])
def test_a_scan_finds_exactly_what_the_shape_finds(padding: int) -> None:
    """Random texts of token pieces: the linear scan and the plain pattern agree on every
    token (its place and its replacement), in texts where the anchor is dense and where it
    is rare (each scan has a path for both)."""
    chooser = random.Random(24)
    for _ in range(4000 if padding else 20000):
        core = "".join(chooser.choice(_FRAGMENTS) for _ in range(chooser.randint(0, 24)))
        text = " " * padding + core + " " * padding
        for shape, scan in _pairs():
            assert list(scan.spans(text)) == [m.span() for m in shape.finditer(text)], core
            assert scan.sub(REDACTED, text) == shape.sub(REDACTED, text), core


def test_a_scan_finds_real_tokens() -> None:
    minted = PatFormat().mint().value
    jwt = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."
    text = f'{{"token": "{minted}", "other": "zz_pat_abcdefgh.ijklmnop", "jwt": "{jwt}"}}'
    assert pat_scan().findall(text) == [minted]
    assert ANY_PAT_SCAN.findall(text) == [minted, "zz_pat_abcdefgh.ijklmnop"]
    assert JWT_SCAN.search(text) == jwt
    assert JWT_SCAN.search("no token here") is None


HOSTILE = {
    "pat prefixes": "amp_pat_",
    "word_pat_ runs": "a_pat_",
    "digits": "9",
    "near-JWTs": "eyJa.eyJ",
    "JWT heads": "eyJ",
    "short pieces": "a.",
}


@pytest.mark.parametrize("piece", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_scan_costs_linear_time_on_hostile_text(piece: str) -> None:
    """100,000 characters built to make a backtracking search quadratic (the plain patterns
    take seconds on them): every scan is done in well under a second (generous, for a noisy
    machine; the redaction benchmark shows the real figure)."""
    text = (piece * (100_000 // len(piece) + 1))[:100_000]
    started = time.perf_counter()
    for _, scan in _pairs():
        scan.sub(REDACTED, text)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("value", "documented"),
    [
        ("amp_pat_0VDx5anoRUK7QmNWYZIOrQ.c2VjcmV0", True),
        ("amp_pat_+/0f3a.9b=e1", True),
        ("amp_pat_abc", False),
        ("amp_pat_a.b.c", False),
        ("amp_pat_a b.c", False),
        ("ghp_abc.def", False),
        (None, False),
    ],
)
def test_the_documented_shape_names_no_alphabet(value: object, documented: bool) -> None:
    # Spec 2.1: a fixed prefix, a segment, a dot, a second segment.
    assert is_documented_pat(value) is documented
