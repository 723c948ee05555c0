"""Response bodies are compact JSON, also when they carry what orjson refuses."""

from __future__ import annotations

import json

from patgate.wire.messages import encode_json, json_response


def test_bodies_are_compact_utf8_json() -> None:
    body = {"name": "ünïcødé <script>", "n": [1, 2.5, None, True]}
    encoded = encode_json(body)
    assert json.loads(encoded) == body
    assert b", " not in encoded
    assert b": " not in encoded
    assert json_response(200, body).body == encoded


def test_a_lone_surrogate_echoed_back_still_encodes() -> None:
    body = {"errors": [{"message": "bad name \ud800"}]}
    encoded = encode_json(body)
    assert encoded.isascii()
    assert json.loads(encoded) == body


def test_integers_beyond_64_bits_still_encode() -> None:
    assert json.loads(encode_json({"big": 2**70})) == {"big": 2**70}
