"""Secrets never show in text: the opaque Secret and the by-value Redactor."""

from __future__ import annotations

import base64
import json
import logging
import pickle
import secrets
import time
from collections.abc import Callable
from urllib.parse import quote, quote_plus

import pytest

from patgate.guards.redaction import REDACTED, LogScrub, Redactor, Secret


def _pat() -> str:
    return f"amp_pat_{secrets.token_urlsafe(16)}.{secrets.token_urlsafe(32)}"


def test_a_secret_never_shows_its_value() -> None:
    value = _pat()
    secret = Secret(value)
    for text in (
        repr(secret),
        str(secret),
        f"{secret}",
        f"{secret!r}",
        f"{[secret]}",
        "%s" % (secret,),  # noqa: UP031 - the old operator must mask too
    ):
        assert value not in text
    assert secret.reveal() == value


def test_secrets_compare_by_value_and_refuse_pickling() -> None:
    value = _pat()
    assert Secret(value) == Secret(value)
    assert Secret(value) != Secret(_pat())
    assert len({Secret(value), Secret(value)}) == 1
    with pytest.raises(TypeError):
        pickle.dumps(Secret(value))
    with pytest.raises(AttributeError):
        Secret(value)._value = "x"  # type: ignore[misc]


def test_a_secret_is_not_a_str() -> None:
    assert not isinstance(Secret("abcdefgh"), str)
    with pytest.raises(TypeError):
        Secret(42)  # type: ignore[arg-type]


def test_an_assertion_diff_does_not_leak_a_secret() -> None:
    value = _pat()
    mine, theirs = Secret(value), Secret(_pat())
    with pytest.raises(AssertionError) as raised:
        assert mine == theirs
    assert value not in str(raised.value)


def test_registered_values_are_redacted_in_any_context() -> None:
    redactor = Redactor()
    client_secret = "s3cr/t=value?with%odd+chars:" + secrets.token_hex(8)
    redactor.register(client_secret)
    redactor.register(Secret("another-secret-" + secrets.token_hex(4)))
    text = f"body client_secret={client_secret}&x=1 and url-encoded " + (
        client_secret.replace("/", "%2F")
        .replace("=", "%3D")
        .replace("?", "%3F")
        .replace("%o", "%25o")
        .replace("+", "%2B")
        .replace(":", "%3A")
    )
    redacted = redactor.redact(text)
    assert client_secret not in redacted
    assert "%2F" not in redacted
    assert redacted.count(REDACTED) == 2


def test_pat_and_jwt_shapes_are_redacted_even_unregistered() -> None:
    jwt_like = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
    text = f"token {_pat()} and bearer {jwt_like} end"
    assert Redactor().redact(text) == f"token {REDACTED} and bearer {REDACTED} end"


def test_a_custom_prefix_is_recognised() -> None:
    value = "acme_" + secrets.token_urlsafe(16) + "." + secrets.token_urlsafe(8)
    assert value not in Redactor(pat_prefix="acme_").redact(f"x {value} y")


def test_a_short_value_is_still_a_secret() -> None:
    redactor = Redactor()
    redactor.register(Secret("abc"))
    redactor.register("")
    assert redactor.redact("abc, abd") == f"{REDACTED}, abd"


def test_basic_credentials_are_redacted_in_base64() -> None:
    secret = "s3cr/t-" + secrets.token_hex(6)
    redactor = Redactor()
    redactor.register_basic("client-1", Secret(secret))
    redactor.register_basic("client-2", "ab")
    for user, password in (("client-1", secret), ("client-2", "ab")):
        header = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        assert redactor.redact(header) == f"Basic {REDACTED}"


@pytest.mark.parametrize("prefix", ["", "x", "xy", "any-user-id:"])
@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
def test_a_value_is_redacted_inside_any_base64_text(
    prefix: str, encode: Callable[[bytes], bytes]
) -> None:
    value = "client-secret-" + secrets.token_hex(8)
    redactor = Redactor()
    redactor.register(value)
    text = encode(f"{prefix}{value}, and more".encode()).decode()
    redacted = redactor.redact(text)
    # The characters made only of the value's bits: no run of 8 of them survives.
    start, end = -(-len(prefix) * 8 // 6), (len(prefix) + len(value)) * 8 // 6
    value_part = text[start:end]
    windows = {value_part[i : i + 8] for i in range(len(value_part) - 7)}
    assert [w for w in windows if w in redacted] == []


@pytest.mark.parametrize(
    "form",
    [
        lambda v: json.dumps(v),
        lambda v: json.dumps(v).replace("/", "\\/"),
        lambda v: "".join(f"\\u{ord(c):04x}" for c in v),
        lambda v: v.replace("-", "\\u002D", 1),
        lambda v: quote(v, safe=""),
        lambda v: quote(v, safe="").lower(),
        lambda v: v.replace("/", "%2f"),
        lambda v: quote_plus(v),
    ],
    ids=["json", "json-slash", "all-unicode", "one-unicode", "url", "url-lower", "url-one", "plus"],
)
def test_json_and_url_escapes_of_a_value_are_redacted(form: Callable[[str], str]) -> None:
    value = "s3cr/t value-" + secrets.token_hex(6)
    redactor = Redactor()
    redactor.register(value)
    redacted = redactor.redact(f"answer: {form(value)} end")
    assert secrets_left(redacted, value) == []


def secrets_left(text: str, value: str) -> list[str]:
    """Pieces of ``value`` (six characters or more) still readable in ``text``."""
    tail = value.rsplit("-", 1)[1]
    return [tail] if tail in text else []


def test_a_token_of_another_prefix_is_redacted() -> None:
    other = f"zz_pat_{secrets.token_urlsafe(16)}.{secrets.token_urlsafe(32)}"
    assert Redactor().redact(f"expected masked, got {other}") == f"expected masked, got {REDACTED}"


def test_nested_data_is_redacted_keys_included() -> None:
    redactor = Redactor()
    value = _pat()
    redactor.register(value)
    data = {"a": [value, {"b": (value, 3)}], value: Secret("whatever-long")}
    cleaned = redactor.redact_data(data)
    assert value not in repr(cleaned)
    assert cleaned["a"][1]["b"] == (REDACTED, 3)
    assert redactor.contains_secret(f"..{value}..")
    assert not redactor.contains_secret(repr(cleaned))


def test_log_records_of_the_http_libraries_are_redacted_while_installed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    value = "opaque-" + secrets.token_hex(12)
    redactor = Redactor()
    redactor.register(value)
    scrub = LogScrub(redactor).install()
    with caplog.at_level(logging.DEBUG):
        logging.getLogger("httpx").info("GET /hubs?access_token=%s", value)
        logging.getLogger("httpcore.http11").debug("header %s", value)
        logging.getLogger("elsewhere").info("not ours %s", value)
        scrub.remove()
        logging.getLogger("httpx").info("after %s", value)
    messages = [record.getMessage() for record in caplog.records]
    assert messages[:2] == [f"GET /hubs?access_token={REDACTED}", f"header {REDACTED}"]
    assert messages[2:] == [f"not ours {value}", f"after {value}"]


def test_a_scrub_removed_out_of_order_stays_harmless() -> None:
    redactor = Redactor()
    original = logging.getLogRecordFactory()
    first = LogScrub(redactor).install()
    second = LogScrub(redactor).install()
    first.remove()
    second.remove()
    first.install()
    first.remove()
    assert logging.getLogRecordFactory() is original
    logging.getLogger("httpx").debug("still works")


def test_a_value_with_a_lone_surrogate_is_registered_and_compared() -> None:
    # JSON may carry "\ud800"; a hostile answer's token must not crash the run.
    value = "tok-\ud800-" + secrets.token_hex(8)
    redactor = Redactor()
    redactor.register(value)
    assert redactor.redact(f"got {value}!") == f"got {REDACTED}!"
    assert Secret(value) == Secret(value)
    assert len({Secret(value), Secret(value)}) == 1


@pytest.mark.parametrize(
    "piece",
    ["9", "eyJ", "amp_pat_", "a_pat_", "eyJa.eyJ%2F"],
    ids=["digits", "jwt-heads", "pat-prefixes", "word-pat-runs", "near-jwts-escaped"],
)
def test_redacting_100000_characters_of_hostile_text_costs_linear_time(piece: str) -> None:
    """100,000 characters of one piece over and over (a huge integer's digits, JWT heads,
    PAT prefixes...), with the run's secrets registered: redacted in under 2 s (generous
    for a noisy machine; the ``redaction`` benchmark shows 1 MB in milliseconds). The
    backtracking search this replaced took 5 to 12 s on the first three."""
    redactor = Redactor()
    redactor.register_all(["s3cr3t-client-secret", "amp_pat_" + "A" * 22 + "." + "B" * 43])
    text = (piece * (100_000 // len(piece) + 1))[:100_000]
    started = time.perf_counter()
    redactor.redact(text)
    assert time.perf_counter() - started < 2.0


def test_a_huge_value_is_registered_and_redacted_quickly() -> None:
    """A hostile answer may reveal a 1 MB "access token": registering it and redacting text
    (escapes included) stays fast, and the value and its encodings are still replaced."""
    redactor = Redactor()
    redactor.register("s3cr3t")
    huge = "x%" * 500_000
    started = time.perf_counter()
    redactor.register(huge)
    text = redactor.redact(f"a={huge} b={quote(huge, safe='')} c=s3cr3t d=%73%33cr3t")
    assert time.perf_counter() - started < 2.0
    assert text == f"a={REDACTED} b={REDACTED} c={REDACTED} d={REDACTED}"
    assert redactor.contains_secret(f"... {huge} ...")


def test_a_form_field_is_redacted_by_what_it_holds_once_decoded() -> None:
    # The value's base64 holds "+" and "/": URL-encoded, no form of the value shows until
    # the field is decoded.
    value = "secret-~~~???-" + secrets.token_hex(6)
    redactor = Redactor()
    redactor.register(value)
    field = quote(base64.b64encode(f"id:{value}".encode()).decode(), safe="")
    assert "%2B" in field
    assert "%2F" in field
    assert redactor.redact_form(f"a=1&auth={field}") == f"a=1&auth={REDACTED}"
    assert redactor.redact_url(f"https://u:p@a.test/x?auth={field}#f") == (
        f"https://a.test/x?auth={REDACTED}"
    )
    # The twin: the same text without decoding keeps the value's bits readable.
    assert field[len(field) // 2 :] in redactor.redact(f"auth={field}")


def test_a_token_shape_behind_escapes_is_redacted() -> None:
    pat = "amp_pat_" + secrets.token_hex(8) + "." + secrets.token_hex(12)
    redactor = Redactor()
    for escaped in (
        '{"t":"\\u0061' + pat[1:] + '"}',
        "t=%61" + pat[1:],
        '{"t":"' + pat.replace("_", "\\u005f") + '"}',
    ):
        assert pat[-12:] not in redactor.redact(escaped), escaped


def test_bytes_are_redacted_and_other_bytes_kept() -> None:
    redactor = Redactor()
    redactor.register("s3cr3t-value-1234")
    body = b"\xff\xfe s3cr3t-value-1234 \xc3\xa9"
    assert redactor.redact_bytes(body) == b"\xff\xfe " + REDACTED.encode() + b" \xc3\xa9"
    assert redactor.redact_bytes(b"\xff plain") == b"\xff plain"


def test_basic_credentials_url_encoded_first_are_redacted() -> None:
    user, password = "client id", "s3cr:t/" + secrets.token_hex(6)
    redactor = Redactor()
    redactor.register_basic(user, password)
    encoded = base64.b64encode(f"{quote_plus(user)}:{quote_plus(password)}".encode()).decode()
    assert redactor.redact(f"Basic {encoded}") == f"Basic {REDACTED}"
