"""An HTTP answer's body read within a size cap, its content coding decoded as the bytes come.

httpx decodes a whole network chunk through every coding ``Content-Encoding`` lists before
its caller sees a byte, so a size check after it comes too late: three kilobytes of
``gzip, gzip`` become hundreds of mebibytes in one step. Here the raw bytes
(``Response.iter_raw``) are decoded one bounded step at a time (zlib's ``max_length`` and
``unconsumed_tail``, brotli's output limit, zstandard's reader), and the cap counts the
decoded bytes as they come, so what is held stays near the cap whatever the ratio.

One coding at most is decoded: an answer compressed more than once (``gzip, gzip``, or
``Content-Encoding`` sent twice) has no honest use and is refused unread, as is a coding this
module cannot read (``br`` needs brotli 1.2 or newer, ``zstd`` the zstandard package).
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, cast

if TYPE_CHECKING:
    import httpx
from patgate.errors import PatgateError

__all__ = [
    "BodyRefused",
    "accepted_codings",
    "announced_within",
    "content_codings",
    "decoded_within",
    "decoders",
    "read_answer",
]

STEP = 64 * 1024
"""The most one decoding step produces (bytes): what is held beyond the cap, at most."""

Decoder = Callable[[Iterator[bytes]], Iterator[bytes]]
"""Raw bytes in, decoded pieces of at most :data:`STEP` bytes out."""


class BodyRefused(PatgateError):
    """An answer's body was not read: too large, or coded in a way that is refused."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large
        """Whether the size cap refused it (not the coding)."""


class _Corrupt(Exception):
    """A decoder met bytes its coding does not allow."""


def content_codings(values: Iterable[str]) -> tuple[str, ...]:
    """The codings of every ``Content-Encoding`` value, in order, lower case, without
    ``identity`` (which changes nothing)."""
    names = (name.strip().lower() for value in values for name in value.split(","))
    return tuple(name for name in names if name and name != "identity")


def accepted_codings() -> str:
    """The ``Accept-Encoding`` value: the codings this module can read here."""
    return ", ".join(decoders())


def decoded_within(raw: Iterable[bytes], codings: tuple[str, ...], cap: int) -> bytes:
    """The body ``raw`` carries, decoded; :class:`BodyRefused` once the raw or the decoded
    bytes pass ``cap``, for more than one coding, or for a coding not read here."""
    if len(codings) > 1:
        raise BodyRefused(
            f"the answer is compressed more than once (Content-Encoding: {', '.join(codings)}); "
            "an answer is read through one coding at most"
        )
    readable = decoders()
    if codings and codings[0] not in readable:
        raise BodyRefused(
            f"the answer's Content-Encoding {codings[0]!r} is not read here "
            f"(readable: {', '.join(readable)})"
        )
    counted = _counted(raw, cap)
    pieces = readable[codings[0]](counted) if codings else counted
    held: list[bytes] = []
    size = 0
    try:
        for piece in pieces:
            size += len(piece)
            if size > cap:
                raise BodyRefused(_too_large(cap), too_large=True)
            held.append(piece)
    except _Corrupt:
        raise BodyRefused(f"the answer's {codings[0]} body is corrupt") from None
    return b"".join(held)


def announced_within(declared: str, cap: int) -> None:
    """:class:`BodyRefused` when a ``Content-Length`` of ``declared`` passes ``cap``."""
    if declared.isascii() and declared.isdigit() and int(declared) > cap:
        raise BodyRefused(f"the answer announces {declared} bytes; {_over(cap)}", too_large=True)


def read_answer(response: httpx.Response, cap: int) -> bytes:
    """The body of a streamed httpx ``response`` (not read yet), decoded within ``cap``: an
    announced ``Content-Length`` over the cap is refused before any byte is read."""
    announced_within(response.headers.get("content-length", ""), cap)
    codings = content_codings(response.headers.get_list("content-encoding"))
    return decoded_within(_raw(response), codings, cap)


def _raw(response: httpx.Response) -> Iterator[bytes]:
    """The body's bytes as sent. An in-process transport (the fake's, or its interception)
    hands httpx an answer it has already read, whose raw bytes ``iter_raw`` no longer gives:
    they are still in its ``stream``, which holds them in memory."""
    import httpx

    if response.is_stream_consumed and isinstance(response.stream, httpx.SyncByteStream):
        return iter(response.stream)
    return response.iter_raw()


def _counted(raw: Iterable[bytes], cap: int) -> Iterator[bytes]:
    """``raw`` as it comes, refused once it passes ``cap`` (compressed bytes count too: a
    body that decodes to nothing must not run on until the deadline)."""
    size = 0
    for chunk in raw:
        size += len(chunk)
        if size > cap:
            raise BodyRefused(_too_large(cap), too_large=True)
        yield chunk


def _too_large(cap: int) -> str:
    return f"the answer is larger than {cap} bytes; {_over(cap)}"


def _over(cap: int) -> str:
    return f"answers are read up to {cap} bytes"


def _inflate(raw: Iterator[bytes], wbits: int, fallback: int | None = None) -> Iterator[bytes]:
    """zlib's decoding of ``raw``, at most :data:`STEP` bytes per step; ``fallback`` is the
    window to retry with when the first bytes do not parse (deflate sent raw, no header)."""
    inflater = zlib.decompressobj(wbits)
    started = False
    for chunk in raw:
        pending = chunk
        # Bytes after the end of the compressed stream are counted but never held.
        while not inflater.eof:
            try:
                piece = inflater.decompress(pending, STEP)
            except zlib.error:
                if started or fallback is None:
                    raise _Corrupt from None
                inflater, fallback = zlib.decompressobj(fallback), None
                continue
            started = True
            if piece:
                yield piece
            pending = inflater.unconsumed_tail
            # A full step may leave output inside zlib: ask again, with no new input.
            if not pending and len(piece) < STEP:
                break


def _gzip(raw: Iterator[bytes]) -> Iterator[bytes]:
    return _inflate(raw, zlib.MAX_WBITS | 16)


def _deflate(raw: Iterator[bytes]) -> Iterator[bytes]:
    # zlib tells a missing header from its first two bytes: it gets them at once.
    return _inflate(_with_head(raw, 2), zlib.MAX_WBITS, fallback=-zlib.MAX_WBITS)


def _with_head(raw: Iterator[bytes], size: int) -> Iterator[bytes]:
    """``raw`` with its first chunk at least ``size`` bytes long (when there are that many)."""
    head = b""
    for chunk in raw:
        head += chunk
        if len(head) >= size:
            break
    if head:
        yield head
    yield from raw


@functools.cache
def decoders() -> dict[str, Decoder]:
    """The codings readable here, by name, in the order ``Accept-Encoding`` lists them
    (looked for once: a missing library is not looked for again at every answer)."""
    found: dict[str, Decoder] = {"gzip": _gzip, "deflate": _deflate}
    brotli = _bounded_brotli()
    if brotli is not None:
        found["br"] = brotli
    zstd = _zstd()
    if zstd is not None:
        found["zstd"] = zstd
    return found


def _bounded_brotli() -> Decoder | None:
    """brotli's decoder, if installed in a version that bounds each step's output (1.2+)."""
    try:
        import brotli  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        return None
    if not hasattr(brotli.Decompressor, "can_accept_more_data"):
        return None

    # brotli stops growing its output once it reaches the limit, so one step may pass it by
    # a growth of its own (up to 32 KiB past a limit under 32 KiB, 64 KiB past one above):
    # a quarter step keeps every piece within a step.
    limit = STEP // 4

    def decode(raw: Iterator[bytes]) -> Iterator[bytes]:
        decompressor = brotli.Decompressor()
        try:
            for chunk in raw:
                yield decompressor.process(chunk, output_buffer_limit=limit)
                while not decompressor.can_accept_more_data():
                    yield decompressor.process(b"", output_buffer_limit=limit)
            while not decompressor.is_finished():
                piece = decompressor.process(b"", output_buffer_limit=limit)
                if not piece:
                    return
                yield piece
        except brotli.error:
            raise _Corrupt from None

    return decode


def _zstd() -> Decoder | None:
    """zstandard's decoder, if installed: its reader hands out at most the bytes asked for."""
    try:
        import zstandard  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None

    def decode(raw: Iterator[bytes]) -> Iterator[bytes]:
        source = cast("IO[bytes]", _Source(raw))  # read() is all the reader calls
        reader = zstandard.ZstdDecompressor().stream_reader(
            source, read_size=STEP, read_across_frames=True
        )
        try:
            while piece := reader.read(STEP):
                yield piece
        except zstandard.ZstdError:
            raise _Corrupt from None

    return decode


class _Source:
    """An iterator of chunks as the file zstandard's reader reads from."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._left = b""

    def read(self, size: int = -1) -> bytes:
        while not self._left:
            self._left = next(self._chunks, b"")
            if not self._left:
                return b""
        size = len(self._left) if size < 0 else size
        piece, self._left = self._left[:size], self._left[size:]
        return piece
