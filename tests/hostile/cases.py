"""The catalogue of misbehaviour: each kind of answer a deployment (or something between it
and the runner) may send that must end as a failed step, never as a crash or a hang."""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from patgate.wire.messages import WireRequest, WireResponse

from .bombs import BOMBS
from .server import (
    Handler,
    Misbehaviour,
    is_create,
    is_hubs,
    is_listing,
    is_token,
    normal,
)

JSON = b"Content-Type: application/json\r\n"


def _static(data: bytes) -> Callable[[Handler, WireRequest, WireResponse], None]:
    def write(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
        del request, answer
        handler.send_raw(data)

    return write


def _answer(**kwargs: Any) -> Callable[[Handler, WireRequest, WireResponse], None]:
    def write(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
        del request
        handler.send_raw(normal(answer, **kwargs))

    return write


def _retry_after(value: bytes) -> Callable[[Handler, WireRequest, WireResponse], None]:
    return _static(
        b"HTTP/1.1 503 X\r\nRetry-After: " + value + b"\r\n" + JSON + b"Content-Length: 2\r\n\r\n{}"
    )


def _rewrite(change: Callable[[Any], Any]) -> Callable[[Handler, WireRequest, WireResponse], None]:
    """The fake's own JSON answer with ``change`` applied to every object in it."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return change({key: walk(item) for key, item in value.items()})
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    def write(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
        del request
        body = json.dumps(walk(json.loads(answer.body))).encode()
        handler.send_raw(normal(answer, body=body))

    return write


def _replace(key: str, value: Any) -> Callable[[Any], Any]:
    return lambda obj: {**obj, key: value} if key in obj else obj


def _body(body: bytes, extra: bytes = JSON) -> Callable[[Handler, WireRequest, WireResponse], None]:
    def write(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
        del request
        handler.send_raw(
            f"HTTP/1.1 {answer.status} X\r\n".encode()
            + extra
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )

    return write


def _bomb(compress: Callable[[bytes], bytes], coding: bytes) -> Callable[..., None]:
    """A small body that decompresses to 16 MiB, four times the default size cap."""

    def write(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
        payload = compress(b'{"data": "' + b"0" * (16 * 1024 * 1024) + b'"}')
        _body(payload, JSON + b"Content-Encoding: " + coding + b"\r\n")(handler, request, answer)

    return write


def _deflate(data: bytes) -> bytes:
    return zlib.compress(data, 9)


def _forever(piece: bytes) -> Iterator[bytes]:
    while True:
        yield piece


def _chunked_forever(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    handler.send_raw(b"HTTP/1.1 200 X\r\n" + JSON + b"Transfer-Encoding: chunked\r\n\r\n")
    handler.drip(_forever(b"4000\r\n" + b" " * 0x4000 + b"\r\n"), 0)


def _slow_body(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    handler.send_raw(b"HTTP/1.1 200 X\r\n" + JSON + b"Content-Length: 100000\r\n\r\n")
    handler.drip(_forever(b" "), 0.2)


def _slow_headers(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    handler.drip(iter(bytes([b]) for b in b"HTTP/1.1 200 X\r\n" + b"X-Slow: " + b"a" * 500), 0.2)


def _endless_1xx(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    handler.drip(_forever(b"HTTP/1.1 102 Processing\r\n\r\n"), 0.05)


def _many_1xx_then_answer(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    handler.send_raw(b"HTTP/1.1 100 Continue\r\n\r\n" * 50 + normal(answer))


def _truncated_chunked(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    handler.send_raw(
        b"HTTP/1.1 200 X\r\n" + JSON + b"Transfer-Encoding: chunked\r\n\r\n" + b'40\r\n{"da'
    )


def _bad_chunk_size(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    handler.send_raw(b"HTTP/1.1 200 X\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")


def _short_body(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    handler.send_raw(
        f"HTTP/1.1 {answer.status} X\r\n".encode()
        + JSON
        + f"Content-Length: {len(answer.body) + 50}\r\n\r\n".encode()
        + answer.body
    )


def _long_body(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    handler.send_raw(
        f"HTTP/1.1 {answer.status} X\r\n".encode()
        + JSON
        + f"Content-Length: {max(len(answer.body) - 7, 0)}\r\n\r\n".encode()
        + answer.body
    )


def _huge_body(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
    size = 16 * 1024 * 1024
    handler.send_raw(b"HTTP/1.1 200 X\r\n" + JSON + f"Content-Length: {size}\r\n\r\n".encode())
    handler.drip(_forever(b" " * 65536), 0)


CASES: tuple[Misbehaviour, ...] = (
    # Retry-After in every shape a server may send it.
    Misbehaviour("retry-after-arabic-digit", _retry_after("\u0661".encode()), is_token),
    Misbehaviour("retry-after-superscript", _retry_after("²".encode()), is_token),
    Misbehaviour("retry-after-latin1", _retry_after(b"\xb3"), is_token),
    Misbehaviour("retry-after-huge", _retry_after(b"9" * 400), is_token),
    Misbehaviour("retry-after-negative", _retry_after(b"-5"), is_token),
    Misbehaviour("retry-after-fraction", _retry_after(b"0.5"), is_token),
    Misbehaviour("retry-after-far-date", _retry_after(b"Fri, 31 Dec 9999 23:59:59 GMT"), is_token),
    Misbehaviour("retry-after-bad-date", _retry_after(b"Mon, 99 Foo 2026 99:99:99 GMT"), is_token),
    Misbehaviour("retry-after-zero-always", _retry_after(b"0"), is_token, times=50),
    # Charsets and encodings.
    Misbehaviour(
        "unknown-charset", _answer(extra=b"Content-Type: application/json; charset=x-nope\r\n")
    ),
    Misbehaviour(
        "lying-charset-utf16", _answer(extra=b"Content-Type: text/plain; charset=utf-16\r\n")
    ),
    Misbehaviour("invalid-utf8", _body(b'{"data": {"viewer": "\xff\xfe\xc3("}}')),
    Misbehaviour("nul-bytes", _body(b'{"data"\x00: \x00{}}')),
    Misbehaviour("lone-surrogate", _body(b'{"data": {"viewer": {"id": "\\ud800"}}}')),
    Misbehaviour("gzip-bomb", _bomb(gzip.compress, b"gzip")),
    Misbehaviour("deflate-bomb", _bomb(_deflate, b"deflate")),
    Misbehaviour("broken-gzip", _body(b"not gzip at all", JSON + b"Content-Encoding: gzip\r\n")),
    Misbehaviour("unknown-encoding", _body(b"{}", JSON + b"Content-Encoding: x-rot13\r\n")),
    *BOMBS,
    # JSON of shapes nobody expects.
    Misbehaviour("list-for-name", _rewrite(_replace("name", ["patgate"])), is_listing),
    Misbehaviour("object-for-id", _rewrite(_replace("id", {"id": 1})), is_create),
    Misbehaviour("number-for-token", _rewrite(_replace("token", 12345)), is_create),
    Misbehaviour("null-data", _rewrite(_replace("data", None))),
    Misbehaviour("list-for-access-token", _rewrite(_replace("access_token", [1])), is_token),
    Misbehaviour("top-level-array", _body(b"[1, 2, 3]")),
    Misbehaviour("top-level-string", _body(b'"hello"')),
    Misbehaviour("deep-nesting", _body(b"[" * 200000 + b"]" * 200000)),
    Misbehaviour("huge-integer", _body(b'{"data": ' + b"9" * 100000 + b"}")),
    Misbehaviour("html-not-json", _body(b"<html>oops</html>", b"Content-Type: text/html\r\n")),
    Misbehaviour("hubs-items-not-list", _rewrite(_replace("content", "nope")), is_hubs),
    # Framing.
    Misbehaviour("never-ending-chunked", _chunked_forever, times=1),
    Misbehaviour("slow-drip-body", _slow_body, times=1),
    Misbehaviour("slow-headers", _slow_headers, times=1),
    Misbehaviour("endless-1xx", _endless_1xx, times=1),
    Misbehaviour("many-1xx-then-answer", _many_1xx_then_answer),
    Misbehaviour("truncated-chunked", _truncated_chunked),
    Misbehaviour("bad-chunk-size", _bad_chunk_size),
    Misbehaviour("content-length-too-long", _short_body),
    Misbehaviour("content-length-too-short", _long_body),
    Misbehaviour(
        "content-length-conflict",
        _static(b"HTTP/1.1 200 X\r\nContent-Length: 2\r\nContent-Length: 9\r\n\r\n{}"),
    ),
    Misbehaviour("oversize-body", _huge_body, times=1),
    Misbehaviour("close-without-answer", _static(b"")),
    Misbehaviour("not-http", _static(b"hello, I am not HTTP\r\n\r\n")),
    Misbehaviour("bad-status-line", _static(b"HTTP/1.1 2OO OK\r\nContent-Length: 0\r\n\r\n")),
    Misbehaviour("status-999", _static(b"HTTP/1.1 999 X\r\nContent-Length: 2\r\n\r\n{}")),
    Misbehaviour(
        "huge-header", _static(b"HTTP/1.1 200 X\r\nX-Big: " + b"a" * 200000 + b"\r\n\r\n")
    ),
    Misbehaviour("non-ascii-header", _answer(extra="X-Name: caf\u00e9 \u2603\r\n".encode())),
    Misbehaviour(
        "redirect-elsewhere",
        _static(b"HTTP/1.1 307 X\r\nLocation: http://192.0.2.1/steal\r\nContent-Length: 0\r\n\r\n"),
    ),
    Misbehaviour(
        "created-then-418",
        lambda handler, request, answer: handler.send_raw(
            normal(WireResponse(418, (("Content-Type", "application/json"),), b"{}"))
        ),
        is_create,
    ),
)
