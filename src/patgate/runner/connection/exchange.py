"""Sending the run's requests: one httpx client, explicit connect and read timeouts, TLS
verification on, no redirect followed (a secret never travels to another host), and 429 /
503 answers resent within the run's :class:`~patgate.runner.connection.retries.RetryPolicy` when the
request may be repeated.

No answer can crash or hold the run: each request has a total deadline (the connect and
read timeouts added up, from the first byte sent to the last byte read), each answer a size
cap counted on the decoded bytes as they come (:mod:`patgate.guards.bounded_body`: one content
coding at most, decoded a bounded step at a time), and whatever the bytes, headers, charset
or encoding, the result is an :class:`~patgate.checks.Observed` or a :class:`RequestFailed`
naming the problem.

Requests go only to the target's own origins (its ``*_url`` keys) and to origins a flag adds
(:class:`NetworkPolicy`); a request carrying a credential is never sent over plain http
except to loopback; proxies named by the environment are ignored unless asked for.
"""

from __future__ import annotations

import json as jsonlib
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from patgate._version import __version__
from patgate.errors import RequestFailed, TargetUnreachable
from patgate.guards.bounded_body import BodyRefused, accepted_codings, read_answer
from patgate.runner.connection.config import is_loopback_host
from patgate.runner.connection.deadline import DEADLINE_MESSAGE, Deadlines, deadline_transport
from patgate.runner.connection.retries import RetryPolicy
from patgate.runner.model import Observed, Sent
from patgate.service.target_contract import TARGET_KEYS

if TYPE_CHECKING:
    import httpx

    from patgate.runner.connection.config import Target

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "Exchange",
    "NetworkPolicy",
    "RequestFailed",
    "may_repeat",
    "origin_of",
]

_SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS"))
_SENT_BODY = 8192
"""Bytes of a request body an answer keeps for a failure's report."""
DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024
"""The largest answer read by default (4 MiB, decompressed); ``--max-response-bytes``."""
_URL_KEYS = tuple(key for key in TARGET_KEYS if key.endswith("_url"))
_CREDENTIAL_HEADERS = frozenset(("authorization", "cookie", "proxy-authorization"))


@dataclass(frozen=True)
class NetworkPolicy:
    """Where the run may send requests and how much of an answer it reads."""

    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    """An answer longer than this (decompressed) fails its step unread."""
    extra_origins: tuple[str, ...] = ()
    """Origins (``https://host[:port]``) steps may address besides the target's own."""
    use_env_proxy: bool = False
    """Honour ``HTTP(S)_PROXY`` and friends (ignored by default: a proxy sees secrets)."""


def origin_of(url: str) -> str:
    """``scheme://host:port`` of ``url``, the port always written (``""`` if unparsable)."""
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower()
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:
        return ""
    if not host or port is None:
        return ""
    shown = f"[{host}]" if ":" in host else host
    return f"{parts.scheme.lower()}://{shown}:{port}"


def may_repeat(method: str, kind: str) -> bool:
    """Whether a request of this method and step kind may be resent after a 429 or 503.

    Reads, and the token endpoint (a new short-lived token is harmless), may; anything else
    that writes may not unless its caller says so (a delete, a GraphQL query).
    """
    return method.upper() in _SAFE_METHODS or kind == "token"


class Exchange:
    """The run's single HTTP client. The first request that cannot connect means the target
    is unreachable (:class:`TargetUnreachable`); later transport errors fail only a step.

    ``observe`` sees every answer first (the run registers the secrets in it).
    """

    def __init__(
        self,
        target: Target,
        *,
        connect_timeout: float = 5.0,
        read_timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        observe: Callable[[Observed], None] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        network: NetworkPolicy | None = None,
        connections: int = 1,
    ) -> None:
        import httpx

        self.network = network if network is not None else NetworkPolicy()
        self._deadlines = Deadlines()
        self._deadline = connect_timeout + read_timeout
        # One client for every scenario of the run, whichever thread sends: its pool keeps
        # as many connections alive as scenarios run at once.
        connections = max(1, connections)
        transport = target.transport()
        if transport is None and not self.network.use_env_proxy:
            transport = deadline_transport(self._deadlines, connections=connections)
        self._client = httpx.Client(
            transport=transport,
            limits=httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
            timeout=httpx.Timeout(read_timeout, connect=connect_timeout),
            follow_redirects=False,
            verify=True,
            trust_env=self.network.use_env_proxy,
            # Only the codings read within the size cap (bounded_body) are asked for.
            headers={"User-Agent": f"patgate/{__version__}", "Accept-Encoding": accepted_codings()},
        )
        urls = [target.config.text(key) for key in _URL_KEYS]
        self.origins = frozenset(
            origin
            for origin in map(origin_of, [*filter(None, urls), *self.network.extra_origins])
            if origin
        )
        """The origins requests may go to."""
        self._secrets = [secret.reveal() for secret in target.config.secrets()]
        self.retry = retry if retry is not None else RetryPolicy()
        self._observe = observe
        self._sleep = sleep
        self.answered = 0
        """Answers read so far (by every thread of the run)."""
        self.unreachable = ""
        """Why the last request could not connect although the target had answered before
        (it became unreachable); the next answer clears it."""
        self._cutoff: float | None = None
        self._counting = threading.Lock()

    def cut_off(self, seconds: float) -> None:
        """Send nothing after ``seconds`` from now, and bound every request to end by then
        (what is left of a lost target's cleanup)."""
        self._cutoff = time.monotonic() + max(seconds, 0.0)

    def send(
        self,
        method: str,
        url: str,
        *,
        kind: str,
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | None = None,
        form: Mapping[str, Any] | None = None,
        json: Any = None,
        content: str | None = None,
        basic: tuple[str, str] | None = None,
        repeat: bool | None = None,
    ) -> Observed:
        """Send one request and describe the answer for the checks.

        ``repeat``: may it be resent after a 429 or 503 (default :func:`may_repeat`)?
        """
        if repeat is None:
            repeat = may_repeat(method, kind)
        attempt = 0
        fresh = False
        while True:
            try:
                observed = self._send_once(
                    method,
                    url,
                    kind=kind,
                    headers=headers,
                    params=params,
                    form=form,
                    json=json,
                    content=content,
                    basic=basic,
                )
            except _Disconnected:
                # A kept-alive connection the server had closed: no answer came, so a
                # request that may be resent goes once more, on a fresh connection.
                if not repeat or fresh:
                    raise
                fresh = True
                continue
            delay = self.retry.delay(observed.status, observed.headers, attempt) if repeat else None
            if delay is None:
                return observed
            attempt += 1
            self._sleep(delay)

    def _send_once(
        self,
        method: str,
        url: str,
        *,
        kind: str,
        headers: Mapping[str, str] | None,
        params: Mapping[str, Any] | None,
        form: Mapping[str, Any] | None,
        json: Any,
        content: str | None,
        basic: tuple[str, str] | None,
    ) -> Observed:
        where = f"{method} {_origin(url)}"
        self._check_destination(where, url, [headers, params, form, json, content], basic)
        request = self._build(
            where,
            method,
            url,
            headers=headers,
            params=params,
            form=form,
            json=json,
            content=content,
            basic=basic,
        )
        status, body, fields = self._answer_to(request, where, url, self._time_left(where))
        with self._counting:
            self.answered += 1
            self.unreachable = ""
        sent = Sent(
            request.method,
            str(request.url),
            tuple(request.headers.items()),
            request.content[:_SENT_BODY].decode("utf-8", "replace"),
        )
        observed = Observed(status, body, fields, kind, sent)
        if self._observe is not None:
            self._observe(observed)
        return observed

    def _build(
        self,
        where: str,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None,
        params: Mapping[str, Any] | None,
        form: Mapping[str, Any] | None,
        json: Any,
        content: str | None,
        basic: tuple[str, str] | None,
    ) -> httpx.Request:
        """The request, not sent; one that cannot be built is a RequestFailed (not sent)."""
        import httpx

        try:
            request = self._client.build_request(
                method,
                url,
                headers=dict(headers or {}),
                params=_text_values(params) if params else None,
                data=_text_values(form) if form is not None else None,
                json=json,
                content=content,
            )
            if basic is not None:
                request = next(httpx.BasicAuth(*basic).auth_flow(request))
        except (httpx.HTTPError, httpx.InvalidURL, ValueError, TypeError) as error:
            raise RequestFailed(f"{where}: cannot build the request: {error}", sent=False) from None
        return request

    def _time_left(self, where: str) -> float:
        """Seconds this request may take: the deadline, within the cleanup's cutoff."""
        deadline = self._deadline
        if self._cutoff is not None:
            deadline = min(deadline, self._cutoff - time.monotonic())
            if deadline <= 0:
                raise RequestFailed(f"{where}: not sent: the time to clean up ran out", sent=False)
        return deadline

    def _answer_to(
        self, request: httpx.Request, where: str, url: str, deadline: float
    ) -> tuple[int, str, dict[str, str]]:
        """Send ``request`` and read the answer within ``deadline``; whatever goes wrong is a
        RequestFailed, or TargetUnreachable when the target never answered this run."""
        import httpx

        try:
            with self._deadlines.within(deadline):
                response = self._client.send(request, stream=True)
                try:
                    return self._read(response, where)
                finally:
                    response.close()
        except RequestFailed:
            raise
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as error:
            if not self.answered:
                raise TargetUnreachable(f"cannot reach {_origin(url)}: {error}") from None
            self.unreachable = f"cannot reach {_origin(url)}: {error}"
            raise RequestFailed(f"{where}: {type(error).__name__}: {error}", sent=False) from None
        except httpx.TimeoutException as error:
            if DEADLINE_MESSAGE in str(error):
                raise RequestFailed(
                    f"{where}: no complete answer within {self._deadline:g} s (the connect and "
                    "read timeouts added up)"
                ) from None
            raise RequestFailed(f"{where}: {type(error).__name__}: {error}") from None
        except httpx.RemoteProtocolError as error:
            failure = _Disconnected if _NO_ANSWER in str(error) else RequestFailed
            raise failure(
                f"{where}: the answer could not be read: {type(error).__name__}: {error}"
            ) from None
        except Exception as error:
            # An answer no HTTP library can make sense of may surface as any exception type
            # (a protocol error, a codec's, a decompressor's): each is a failed request.
            raise RequestFailed(
                f"{where}: the answer could not be read: {type(error).__name__}: {error}"
            ) from None

    def _read(self, response: Any, where: str) -> tuple[int, str, dict[str, str]]:
        """Status, text and headers of ``response``, its body decoded within the size cap."""
        try:
            content = read_answer(response, self.network.max_response_bytes)
        except BodyRefused as refused:
            flag = " (--max-response-bytes)" if refused.too_large else ""
            raise RequestFailed(f"{where}: {refused}{flag}") from None
        fields = {name: ", ".join(response.headers.get_list(name)) for name in response.headers}
        return response.status_code, _decode(content, response), fields

    def _check_destination(
        self, where: str, url: str, parts: Iterable[Any], basic: tuple[str, str] | None
    ) -> None:
        origin = origin_of(url)
        if origin not in self.origins:
            raise RequestFailed(
                f"{where}: refused, not one of the target's origins "
                f"({', '.join(sorted(self.origins))}); --allow-origin {origin or 'ORIGIN'} "
                "adds it",
                sent=False,
            )
        host = urlsplit(url.strip()).hostname or ""
        plain = origin.startswith("http://") and not is_loopback_host(host)
        if plain and (basic is not None or self._carries_secret(parts)):
            raise RequestFailed(
                f"{where}: refused, a credential is never sent over plain http except to loopback",
                sent=False,
            )

    def _carries_secret(self, parts: Iterable[Any]) -> bool:
        for part in parts:
            if part is None:
                continue
            if isinstance(part, Mapping) and any(
                str(name).lower() in _CREDENTIAL_HEADERS for name in part
            ):
                return True
            text = part if isinstance(part, str) else jsonlib.dumps(part, default=str)
            if any(secret and secret in text for secret in self._secrets):
                return True
        return False

    def close(self) -> None:
        """Close the client."""
        self._client.close()


_NO_ANSWER = "without sending a response"
"""What httpx says when a connection closed before any byte of an answer came."""


class _Disconnected(RequestFailed):
    """The connection closed before any answer came (a kept-alive one the server had
    closed, most often): a request that may be resent is sent once more."""


def _decode(content: bytes, response: Any) -> str:
    """``content`` as text: in its declared charset when Python knows it and it decodes,
    else UTF-8; bytes that do not decode become U+FFFD, never an error."""
    try:
        charset = response.charset_encoding
    except Exception:  # a Content-Type too odd to parse names no charset
        charset = None
    for encoding in (charset, "utf-8"):
        if encoding:
            try:
                return content.decode(encoding, errors="replace")
            except (LookupError, UnicodeError, ValueError):
                continue
    return content.decode("utf-8", errors="replace")


def _text_values(values: Mapping[str, Any]) -> dict[str, str]:
    return {
        key: (
            "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        )
        for key, value in values.items()
    }


def _origin(url: str) -> str:
    from urllib.parse import urlsplit

    # Host and port only: user information in a URL would be a credential.
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"
