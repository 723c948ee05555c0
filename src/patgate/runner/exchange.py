"""Sending the run's requests: one httpx client, explicit connect and read timeouts, TLS
verification on, no redirect followed (a secret never travels to another host), and 429 /
503 answers resent within the run's :class:`~patgate.runner.retries.RetryPolicy` when the
request may be repeated."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from patgate import __version__
from patgate.errors import RequestFailed, TargetUnreachable
from patgate.runner.model import Observed
from patgate.runner.retries import RetryPolicy

if TYPE_CHECKING:
    from patgate.runner.target import Target

__all__ = ["Exchange", "may_repeat"]

_SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS"))


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
    ) -> None:
        import httpx

        self._client = httpx.Client(
            transport=target.transport(),
            timeout=httpx.Timeout(read_timeout, connect=connect_timeout),
            follow_redirects=False,
            verify=True,
            headers={"User-Agent": f"patgate/{__version__}"},
        )
        self.retry = retry if retry is not None else RetryPolicy()
        self._observe = observe
        self._sleep = sleep
        self.answered = 0

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
        while True:
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
        import httpx

        try:
            response = self._client.request(
                method,
                url,
                headers=dict(headers or {}),
                params=_text_values(params) if params else None,
                data=_text_values(form) if form is not None else None,
                json=json,
                content=content,
                auth=basic,
            )
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as error:
            if not self.answered:
                raise TargetUnreachable(f"cannot reach {_origin(url)}: {error}") from None
            raise RequestFailed(
                f"{method} {_origin(url)}: {type(error).__name__}: {error}", sent=False
            ) from None
        except (httpx.HTTPError, httpx.InvalidURL) as error:
            raise RequestFailed(
                f"{method} {_origin(url)}: {type(error).__name__}: {error}"
            ) from None
        self.answered += 1
        observed = Observed(
            response.status_code,
            response.text,
            {name: ", ".join(response.headers.get_list(name)) for name in response.headers},
            kind,
        )
        if self._observe is not None:
            self._observe(observed)
        return observed

    def close(self) -> None:
        """Close the client."""
        self._client.close()


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
