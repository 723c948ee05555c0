"""Decoded size is bounded before it is held: a compressed answer is decoded a bounded step
at a time with the size cap counted on the decoded bytes, so a bomb is refused having held
little more than the cap; an answer compressed more than once, or in a coding not read, is
refused unread; an honest compressed answer is read whole."""

from __future__ import annotations

import gzip
import json
import os
import sys
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from patgate.control_client import CONTROL_ANSWER_BYTES, ControlClient, ControlError
from patgate.guards.bounded_body import (
    STEP,
    BodyRefused,
    accepted_codings,
    decoded_within,
    decoders,
)
from patgate.runner import LiveTarget, resolve_target_config
from patgate.runner.connection.config import TargetConfig
from patgate.runner.connection.exchange import (
    DEFAULT_MAX_RESPONSE_BYTES,
    Exchange,
    NetworkPolicy,
    RequestFailed,
)

from . import bombs
from .server import Misbehaviour, Server

CAP = DEFAULT_MAX_RESPONSE_BYTES


def _every(request: object) -> bool:
    return True


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Exchange]]:
    """An exchange with a server whose first answer ``writer`` writes."""
    opened: list[tuple[Server, Exchange]] = []

    def make(writer: bombs.Writer, **policy: Any) -> Exchange:
        server = Server(Misbehaviour("bomb", writer, _every, times=1)).start()
        world = tmp_path / "w.json"
        server.write_world(world)
        config = resolve_target_config(world)
        assert config is not None
        exchange = Exchange(LiveTarget(config), read_timeout=20, network=NetworkPolicy(**policy))
        exchange.base_url = server.base_url  # type: ignore[attr-defined]
        opened.append((server, exchange))
        return exchange

    yield make
    for server, exchange in opened:
        exchange.close()
        server.stop()


def refused_holding(exchange: Exchange) -> tuple[str, int]:
    """What a request's failure says, and the most memory held while it was read."""
    url = exchange.base_url + "/v2/content/hubs"  # type: ignore[attr-defined]
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        with pytest.raises(RequestFailed) as failed:
            exchange.send("GET", url, kind="http")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return str(failed.value), peak


def read(exchange: Exchange) -> str:
    url = exchange.base_url + "/v2/content/hubs"  # type: ignore[attr-defined]
    return exchange.send("GET", url, kind="http").text


@pytest.mark.parametrize(
    "bomb", [bombs.GIB_GZIP, bombs.ZLIB_DEFLATE, bombs.RAW_DEFLATE], ids=["gzip", "zlib", "raw"]
)
def test_a_one_layer_bomb_of_a_gibibyte_is_refused_having_held_under_twice_the_cap(
    serve: Callable[..., Exchange], bomb: bombs.Writer
) -> None:
    bombs.gzip_bomb(1024), bombs.zlib_bomb(1024)  # built before memory is measured
    message, peak = refused_holding(serve(bomb))
    assert f"larger than {CAP} bytes" in message
    assert "--max-response-bytes" in message
    assert peak < 2 * CAP, f"held {peak / bombs.MIB:.1f} MiB reading a bomb"


def test_the_measure_sees_what_decoding_a_chunk_whole_would_hold(
    serve: Callable[..., Exchange],
) -> None:
    """The twin of the test above: the same bomb read the way httpx decodes (each network
    chunk whole, the cap checked after) holds many times the cap, and the measure sees it."""
    bombs.gzip_bomb(1024)
    exchange = serve(bombs.GIB_GZIP)
    url = exchange.base_url + "/v2/content/hubs"  # type: ignore[attr-defined]
    tracemalloc.start()
    try:
        with httpx.stream("GET", url) as response:
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > CAP:
                    break
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak > 4 * CAP


@pytest.mark.parametrize(
    ("bomb", "named"),
    [
        (bombs.STACKED_GZIP, "gzip, gzip"),
        (bombs.GZIP_LISTED_TWICE, "gzip, gzip"),
        (bombs.GZIP_THEN_BR, "gzip, br"),
    ],
    ids=["gzip-gzip", "header-twice", "gzip-br"],
)
def test_an_answer_compressed_twice_is_refused_unread_naming_its_codings(
    serve: Callable[..., Exchange], bomb: bombs.Writer, named: str
) -> None:
    bombs.stacked_gzip_bomb(256), bombs.stacked_gzip_bomb(16)
    message, peak = refused_holding(serve(bomb))
    assert f"compressed more than once (Content-Encoding: {named})" in message
    assert peak < CAP // 4, f"held {peak / bombs.MIB:.1f} MiB refusing it"


def test_a_coding_not_read_here_is_refused_naming_it(serve: Callable[..., Exchange]) -> None:
    message, _ = refused_holding(serve(bombs.coded(lambda: b"{}", b"x-rot13")))
    assert "Content-Encoding 'x-rot13' is not read here" in message
    assert "gzip, deflate" in message


def _raw_deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


@pytest.mark.parametrize(
    ("compress", "coding"),
    [(gzip.compress, b"gzip"), (zlib.compress, b"deflate"), (_raw_deflate, b"deflate")],
    ids=["gzip", "zlib", "raw-deflate"],
)
def test_an_honest_compressed_answer_is_read_as_the_plain_one(
    serve: Callable[..., Exchange], compress: Callable[[bytes], bytes], coding: bytes
) -> None:
    plain = read(serve(lambda handler, request, answer: handler.send_raw(_plain(answer))))
    assert json.loads(plain), "the fake's own answer"
    assert read(serve(bombs.compressed_answer(compress, coding))) == plain


def _plain(answer: Any) -> bytes:
    from .server import normal

    return normal(answer)


def test_a_compressed_answer_just_under_the_cap_is_read_whole(
    serve: Callable[..., Exchange],
) -> None:
    text = read(serve(bombs.coded(lambda: bombs.gzip_bomb(3), b"gzip")))
    assert text == "\0" * (3 * bombs.MIB)


def test_the_cap_counts_decoded_bytes_a_flag_lowers(serve: Callable[..., Exchange]) -> None:
    exchange = serve(bombs.coded(lambda: bombs.gzip_bomb(3), b"gzip"), max_response_bytes=bombs.MIB)
    message, _ = refused_holding(exchange)
    assert f"larger than {bombs.MIB} bytes" in message


def test_the_codings_asked_for_are_the_ones_read() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["accept-encoding"])
        return httpx.Response(200, json={})

    exchange = _in_process(answer)
    exchange.send("GET", "https://api.example.test/v2/content/hubs", kind="http")
    exchange.close()
    assert seen == [accepted_codings()]
    assert set(accepted_codings().split(", ")) <= {"gzip", "deflate", "br", "zstd"}


def _in_process(answer: Callable[[httpx.Request], httpx.Response]) -> Exchange:
    config = TargetConfig(
        {"base_url": "https://api.example.test", "auth_url": "https://auth.example.test"}
    )
    return Exchange(LiveTarget(config, transport=httpx.MockTransport(answer)))


def test_an_in_process_answer_goes_through_the_same_decoding() -> None:
    """A transport in the process (the fake's) hands httpx an answer already read: its raw
    bytes are still decoded here, and two layers still refused."""
    inner = gzip.compress(b'{"content": []}')
    answers = iter(
        [
            httpx.Response(200, headers={"Content-Encoding": "gzip"}, content=inner),
            httpx.Response(
                200, headers={"Content-Encoding": "gzip, gzip"}, content=gzip.compress(inner)
            ),
        ]
    )
    exchange = _in_process(lambda request: next(answers))
    url = "https://api.example.test/v2/content/hubs"
    assert exchange.send("GET", url, kind="http").text == '{"content": []}'
    with pytest.raises(RequestFailed, match="compressed more than once"):
        exchange.send("GET", url, kind="http")
    exchange.close()


# -- the decoder itself -------------------------------------------------------------------


def test_no_step_decodes_more_than_a_step_and_every_byte_arrives() -> None:
    """Fed one byte at a time or in large chunks, the decoded pieces never exceed a step and
    add up to the original (nothing held back inside zlib is lost)."""
    original = os.urandom(100_000) + bytes(2 * bombs.MIB) + os.urandom(1000)
    for coding, compressed in (
        ("gzip", gzip.compress(original)),
        ("deflate", zlib.compress(original)),
        ("deflate", _raw_deflate(original)),
    ):
        for size in (1, 7, 65536, len(compressed)):
            chunks = [compressed[i : i + size] for i in range(0, len(compressed), size)]
            pieces = list(decoders()[coding](iter(chunks)))
            assert max(map(len, pieces)) <= STEP
            assert b"".join(pieces) == original
            assert decoded_within(iter(chunks), (coding,), CAP) == original


def test_a_corrupt_compressed_body_is_refused() -> None:
    with pytest.raises(BodyRefused, match="corrupt"):
        decoded_within(iter([b"\x1f\x8b\x08\x00" + b"\xff" * 64]), ("gzip",), CAP)


def test_identity_is_no_coding_and_raw_bytes_count_too() -> None:
    assert decoded_within(iter([b"ab", b"c"]), (), 3) == b"abc"
    with pytest.raises(BodyRefused) as refused:
        decoded_within(iter([b"ab", b"cd"]), (), 3)
    assert refused.value.too_large


# -- the control API of a served fake ------------------------------------------------------


@pytest.mark.parametrize(
    ("bomb", "said"),
    [
        (bombs.GIB_GZIP, f"larger than {CONTROL_ANSWER_BYTES} bytes"),
        (bombs.STACKED_GZIP, "compressed more than once"),
    ],
    ids=["gibibyte", "gzip-gzip"],
)
def test_a_control_answer_is_read_within_its_own_cap(bomb: bombs.Writer, said: str) -> None:
    bombs.gzip_bomb(1024), bombs.stacked_gzip_bomb(256)
    with Server(Misbehaviour("bomb", bomb, _every, times=1)) as server:
        control = ControlClient(server.base_url + "/control", "t", timeout=20)
        tracemalloc.start()
        try:
            with pytest.raises(ControlError, match=said):
                control.snapshot()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 2 * CONTROL_ANSWER_BYTES


@pytest.mark.parametrize(("coding", "library"), [("br", "brotli"), ("zstd", "zstandard")])
def test_br_and_zstd_are_read_within_the_cap_when_their_library_is_installed(
    serve: Callable[..., Exchange], coding: str, library: str
) -> None:
    pytest.importorskip(library)
    if coding not in decoders():
        pytest.skip(f"{library} too old to bound each step")
    bomb = bombs.library_bomb(coding, 256)
    exchange = serve(bombs.coded(lambda: bomb, coding.encode()))
    message, peak = refused_holding(exchange)
    assert f"larger than {CAP} bytes" in message
    assert peak < 2 * CAP, f"held {peak / bombs.MIB:.1f} MiB"
    honest = bombs.library_bomb(coding, 3)
    assert read(serve(bombs.coded(lambda: honest, coding.encode()))) == "\0" * (3 * bombs.MIB)


@pytest.mark.parametrize(("coding", "library"), [("br", "brotli"), ("zstd", "zstandard")])
def test_a_coding_whose_library_is_missing_is_refused_naming_it(
    coding: str,
    library: str,
    serve: Callable[..., Exchange],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The library made unimportable, as on a machine without it.
    monkeypatch.setitem(sys.modules, library, None)
    decoders.cache_clear()
    try:
        assert coding not in decoders()
        message, _ = refused_holding(serve(bombs.coded(lambda: b"\0" * 16, coding.encode())))
    finally:
        decoders.cache_clear()
    assert f"Content-Encoding {coding!r} is not read here" in message
