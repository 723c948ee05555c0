"""Sending the run's requests: one httpx client, explicit timeouts, no redirects followed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from patgate import __version__
from patgate.checks import Observed
from patgate.errors import TargetUnreachable

if TYPE_CHECKING:
    from patgate.runner.target import Target

__all__ = ["Exchange", "RequestFailed"]


class RequestFailed(Exception):
    """A request got no answer (timeout, reset, refused after the target had answered)."""


class Exchange:
    """The run's single HTTP client. The first request that cannot connect means the target
    is unreachable (:class:`TargetUnreachable`); later transport errors fail only a step."""

    def __init__(
        self, target: Target, *, connect_timeout: float = 5.0, read_timeout: float = 30.0
    ) -> None:
        import httpx

        self._client = httpx.Client(
            transport=target.transport(),
            timeout=httpx.Timeout(read_timeout, connect=connect_timeout),
            follow_redirects=False,
            headers={"User-Agent": f"patgate/{__version__}"},
        )
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
    ) -> Observed:
        """Send one request and describe the answer for the checks."""
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
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            if not self.answered:
                raise TargetUnreachable(f"cannot reach {_origin(url)}: {error}") from None
            raise RequestFailed(
                f"{method} {_origin(url)}: {type(error).__name__}: {error}"
            ) from None
        except (httpx.HTTPError, httpx.InvalidURL) as error:
            raise RequestFailed(
                f"{method} {_origin(url)}: {type(error).__name__}: {error}"
            ) from None
        self.answered += 1
        return Observed(
            response.status_code,
            response.text,
            {name: ", ".join(response.headers.get_list(name)) for name in response.headers},
            kind,
        )

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

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"
