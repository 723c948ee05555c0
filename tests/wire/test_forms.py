from __future__ import annotations

import pytest

from patgate.errors import InvalidRequest
from patgate.wire.forms import MAX_PARAMETERS, parameter_names, parse_form


def test_a_form_decodes_plus_and_escapes() -> None:
    form = parse_form(b"a=x+y&b=%2F%3D%3F%25%2B%3A&c=caf%C3%A9")
    assert form == {"a": "x y", "b": "/=?%+:", "c": "café"}


def test_empty_values_count_as_omitted_and_empty_fields_are_skipped() -> None:
    assert parse_form(b"a=&b&&c=1&") == {"c": "1"}
    assert parse_form(b"&&&") == {}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"a=1&a=2", "more than once"),
        (b"a=&a=2", "more than once"),
        (b"a=%zz", "percent-escape"),
        (b"a=%4", "percent-escape"),
        (b"a=%ff", "UTF-8"),
        (b"a=\xff", "UTF-8"),
        (b"a=%00", "NUL"),
        (b"a=\x00", "NUL"),
        ("&".join(f"p{i}=1" for i in range(MAX_PARAMETERS + 1)).encode(), "more than"),
    ],
)
def test_malformed_forms_are_invalid_requests(body: bytes, problem: str) -> None:
    with pytest.raises(InvalidRequest, match=problem):
        parse_form(body)


def test_parameter_names_are_decoded_and_never_refused() -> None:
    assert parameter_names("a=1&client%5Fsecret=x&b&%zz=1&&") == {"a", "client_secret", "b", "%zz"}
    assert parameter_names("") == frozenset()
