"""Compression bombs: small answers that decode to far more than the size cap, in one coding
or several, and the writers that serve them from :mod:`tests.hostile.server`."""

from __future__ import annotations

import functools
import gzip
import struct
import zlib
from collections.abc import Callable

from patgate.wire.messages import WireRequest, WireResponse

from .server import Handler, Misbehaviour, is_listing

MIB = 1024 * 1024
Writer = Callable[[Handler, WireRequest, WireResponse], None]


@functools.cache
def deflate_zeros(mebibytes: int) -> tuple[bytes, int]:
    """Raw deflate of ``mebibytes`` MiB of zero bytes (about 1 KiB per MiB), and its CRC-32.

    Each mebibyte is compressed after a full flush, so every one after the first is the
    same bytes: a gibibyte costs one mebibyte's compression, not a gibibyte's.
    """
    block = bytes(MIB)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    first = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mebibytes):
        crc = zlib.crc32(block, crc)
    return first + again * (mebibytes - 1) + compressor.flush(), crc


@functools.cache
def gzip_bomb(mebibytes: int) -> bytes:
    """A valid gzip member that decodes to ``mebibytes`` MiB of zeros."""
    body, crc = deflate_zeros(mebibytes)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + body + struct.pack("<II", crc, (mebibytes * MIB) & 0xFFFFFFFF)


@functools.cache
def zlib_bomb(mebibytes: int) -> bytes:
    """``deflate`` as RFC 9110 means it (a zlib stream) decoding to ``mebibytes`` MiB."""
    body, _ = deflate_zeros(mebibytes)
    adler = 1
    block = bytes(MIB)
    for _ in range(mebibytes):
        adler = zlib.adler32(block, adler)
    return b"\x78\xda" + body + struct.pack(">I", adler)


@functools.cache
def stacked_gzip_bomb(mebibytes: int) -> bytes:
    """``Content-Encoding: gzip, gzip``: a gzip bomb gzipped again (a few KiB on the wire)."""
    return gzip.compress(gzip_bomb(mebibytes), 9)


def coded(payload: Callable[[], bytes], *encodings: bytes) -> Writer:
    """An answer whose body is ``payload()`` with one ``Content-Encoding`` line per entry of
    ``encodings``; the body is written apart from the head, so the server never copies it."""

    def write(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
        del request
        body = payload()
        head = [f"HTTP/1.1 {answer.status} X", "Content-Type: application/json"]
        head += [f"Content-Encoding: {encoding.decode()}" for encoding in encodings]
        head.append(f"Content-Length: {len(body)}")
        handler.send_raw(("\r\n".join(head) + "\r\n\r\n").encode())
        handler.send_raw(body)

    return write


def compressed_answer(compress: Callable[[bytes], bytes], encoding: bytes) -> Writer:
    """The fake's own answer, compressed once the honest way."""

    def write(handler: Handler, request: WireRequest, answer: WireResponse) -> None:
        coded(lambda: compress(answer.body), encoding)(handler, request, answer)

    return write


GIB_GZIP = coded(lambda: gzip_bomb(1024), b"gzip")
"""One layer of gzip, 1 MiB on the wire, 1 GiB decoded."""
STACKED_GZIP = coded(lambda: stacked_gzip_bomb(256), b"gzip, gzip")
"""Two layers in one header: 256 MiB decoded, from a few KiB."""
GZIP_LISTED_TWICE = coded(lambda: stacked_gzip_bomb(256), b"gzip", b"gzip")
"""The same two layers, ``Content-Encoding`` sent twice."""
GZIP_THEN_BR = coded(lambda: stacked_gzip_bomb(16), b"gzip, br")
ZLIB_DEFLATE = coded(lambda: zlib_bomb(1024), b"deflate")
RAW_DEFLATE = coded(lambda: deflate_zeros(1024)[0], b"deflate")

BOMBS: tuple[Misbehaviour, ...] = (
    Misbehaviour("gzip-bomb-1gib", GIB_GZIP),
    Misbehaviour("gzip-gzip-stacked", STACKED_GZIP, is_listing),
    Misbehaviour("content-encoding-listed-twice", GZIP_LISTED_TWICE, is_listing),
    Misbehaviour("gzip-br-stacked", GZIP_THEN_BR, is_listing),
    Misbehaviour("deflate-bomb-1gib", ZLIB_DEFLATE),
    Misbehaviour("raw-deflate-bomb-1gib", RAW_DEFLATE, is_listing),
)
"""Every bomb, for the catalogue of misbehaviour."""


@functools.cache
def library_bomb(coding: str, mebibytes: int) -> bytes:
    """``mebibytes`` MiB of zeros in ``br`` or ``zstd``, by their libraries (when installed)."""
    data = bytes(mebibytes * MIB)
    if coding == "br":
        import brotli

        return bytes(brotli.compress(data, quality=5))
    import zstandard

    return bytes(zstandard.ZstdCompressor(level=3).compress(data))
