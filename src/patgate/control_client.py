"""``patgate.ControlClient``: the control API of a served fake, from Python, over HTTP.

::

    control = patgate.ControlClient(world["control_url"], world["control_token"])
    control.remove_user(user_id)
    control.faults.add("hubs", status=429, retry_after=5)

Its methods have the names of :class:`patgate.Fake`'s control methods and take the same
arguments; they answer the control API's JSON (dicts) where ``Fake`` answers domain objects.
A refused call raises :class:`ControlError` with the API's status, code and message.
"""

from __future__ import annotations

import json
from types import TracebackType
from typing import Any

from patgate.errors import PatgateError

__all__ = ["CONTROL_ANSWER_BYTES", "ControlClient", "ControlError", "RemoteFaults"]

CONTROL_ANSWER_BYTES = 64 * 1024 * 1024
"""The largest control answer read (decoded): a served fake's request log may be long, but
an answer past this, or compressed more than once, is a :class:`ControlError`."""


class ControlError(PatgateError):
    """The control API refused a call; ``status`` and ``code`` say why."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code


class RemoteFaults:
    """``ControlClient.faults``: the fault rules of the served fake, as ``Fake.faults`` has."""

    def __init__(self, client: ControlClient) -> None:
        self._client = client

    def add(self, endpoint: str = "any", **spec: Any) -> dict[str, Any]:
        """Add a rule (the fields of ``patgate.fake.faults.FaultRule``); returns it."""
        return self.add_from_json({"endpoint": endpoint, **spec})

    def add_from_json(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Add a rule from its JSON form."""
        rule: dict[str, Any] = self._client.call("POST", "/faults", spec)
        return rule

    def remove(self, rule_id: str) -> None:
        """Remove one rule."""
        self._client.call("POST", "/faults/remove", {"id": rule_id})

    def clear(self) -> None:
        """Remove every rule and switch the rate limit off."""
        self._client.call("DELETE", "/faults")

    def rules(self) -> list[dict[str, Any]]:
        """The rules, oldest first."""
        rules: list[dict[str, Any]] = self._client.call("GET", "/faults")["faults"]
        return rules

    @property
    def rate_limit(self) -> bool:
        """Whether the GraphQL rate limit is on."""
        return bool(self._client.call("GET", "/faults")["rate_limit"])

    def set_rate_limit(self, on: bool) -> None:
        """Switch the GraphQL rate limit (60 per minute per key) on or off."""
        self._client.call("PUT", "/rate-limit", {"enabled": on})


class ControlClient:
    """Calls the control API at ``url`` (a target file's ``control_url``) with ``token``."""

    def __init__(self, url: str, token: str, *, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}"}
        self._timeout = timeout
        self._tls: Any = None
        """The TLS settings every call shares (made on the first call): building them loads
        the certificate bundle, 20 to 50 ms of CPU that a call per connection would pay each
        time, a URL on plain http included."""
        self.faults = RemoteFaults(self)
        """The served fake's fault rules and rate-limit switch."""

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One control call; its JSON answer, or :class:`ControlError`.

        Each call has a connection of its own, closed at once: a client that is never
        closed leaves nothing open.
        """
        import httpx

        from patgate.bounded_body import BodyRefused, accepted_codings, read_answer

        if self._tls is None:
            self._tls = httpx.create_ssl_context()
        with httpx.stream(
            method,
            self.url + path,
            json=body,
            headers={**self._headers, "Accept-Encoding": accepted_codings()},
            timeout=self._timeout,
            verify=self._tls,
        ) as response:
            try:
                content = read_answer(response, CONTROL_ANSWER_BYTES)
            except BodyRefused as refused:
                raise ControlError(response.status_code, "UNREAD", str(refused)) from None
        answer = _json(response.status_code, content)
        if response.status_code >= 400:
            error = answer.get("error", {}) if isinstance(answer, dict) else {}
            raise ControlError(
                response.status_code,
                str(error.get("code", "ERROR")),
                str(error.get("message", content[:200].decode("utf-8", "replace"))),
            )
        return answer

    def close(self) -> None:
        """Nothing stays open between calls; kept so a client works as a context manager."""

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ControlClient({self.url!r}, token=<hidden>)"

    # -- the same names as patgate.Fake ----------------------------------------------------

    def reset(self) -> None:
        """Back to the seeded world with the same credentials; no faults; an empty log."""
        self.call("POST", "/reset")

    def snapshot(self) -> dict[str, Any]:
        """The state: users, roles, clients, hubs, masked tokens, pending requests, clock."""
        snapshot: dict[str, Any] = self.call("GET", "/snapshot")
        return snapshot

    def world_ids(self) -> dict[str, str]:
        """The seeded world's organization and principals (``admin``, ...) by id."""
        ids: dict[str, str] = self.call("GET", "/world")
        return ids

    def add_user(
        self,
        name: str,
        email: str | None = None,
        *,
        role: str = "member",
        organization_id: str | None = None,
    ) -> dict[str, Any]:
        """A new user with ``role`` (default: member of the world's organization)."""
        body = {"name": name, "email": email, "role": role, "organization_id": organization_id}
        return self._post("/users", body)

    def users(self) -> list[dict[str, Any]]:
        """Every user, members or not."""
        users: list[dict[str, Any]] = self.call("GET", "/users")["users"]
        return users

    def remove_user(self, user_id: str, organization_id: str | None = None) -> None:
        """Remove the user from the organization; their PATs stop working at once."""
        self._post("/users/remove", {"user_id": user_id, "organization_id": organization_id})

    def restore_user(self, user_id: str, organization_id: str | None = None) -> None:
        """Add a removed user back with the role they had."""
        self._post("/users/restore", {"user_id": user_id, "organization_id": organization_id})

    def set_role(self, user_id: str, role: str, organization_id: str | None = None) -> None:
        """Change the user's role, or add them back with it."""
        body = {"user_id": user_id, "role": role, "organization_id": organization_id}
        self._post("/users/role", body)

    def add_client(self, user_id: str, organization_id: str | None = None) -> tuple[str, str]:
        """An API key acting as ``user_id``: ``(client_id, client_secret)``."""
        made = self._post("/clients", {"user_id": user_id, "organization_id": organization_id})
        return made["client_id"], made["client_secret"]

    def clients(self) -> list[dict[str, Any]]:
        """Every API client (never a secret)."""
        clients: list[dict[str, Any]] = self.call("GET", "/clients")["clients"]
        return clients

    def add_hub(
        self, name: str, *, organization_id: str | None = None, **fields: Any
    ) -> dict[str, Any]:
        """A hub; ``fields`` may set label, description, status."""
        return self._post("/hubs", {"name": name, "organization_id": organization_id, **fields})

    def hubs(self) -> list[dict[str, Any]]:
        """Every hub."""
        hubs: list[dict[str, Any]] = self.call("GET", "/hubs")["hubs"]
        return hubs

    def request_token_via_ui(
        self, user_id: str, name: str, organization_id: str | None = None
    ) -> dict[str, Any]:
        """The management UI path; the answer's ``value`` is the full token, shown once."""
        body = {"user_id": user_id, "name": name, "organization_id": organization_id}
        return self._post("/token-requests", body)

    def pending_requests(self, organization_id: str | None = None) -> list[dict[str, Any]]:
        """Token requests waiting for an admin, oldest first."""
        path = "/token-requests"
        if organization_id:
            import urllib.parse

            path += "?" + urllib.parse.urlencode({"organization_id": organization_id})
        pending: list[dict[str, Any]] = self.call("GET", path)["pending"]
        return pending

    def approve_token_request(
        self, token_id: str, approver_id: str | None = None
    ) -> dict[str, Any]:
        """Approve a pending token; it works at once."""
        return self._post(
            "/token-requests/approve", {"token_id": token_id, "approver_id": approver_id}
        )

    def reject_token_request(self, token_id: str) -> None:
        """Reject a pending token; it disappears."""
        self._post("/token-requests/reject", {"token_id": token_id})

    def issue_token(
        self, user_id: str, name: str = "patgate test token", organization_id: str | None = None
    ) -> str:
        """A usable PAT for ``user_id`` through the UI path, approved if it pends."""
        created = self.request_token_via_ui(user_id, name, organization_id)
        if created["status"] == "pending":
            self.approve_token_request(created["id"])
        value: str = created["value"]
        return value

    def profile_document(self) -> dict[str, Any]:
        """The fake's active profile (docs/profile.md), as its YAML document's mapping."""
        document: dict[str, Any] = self.call("GET", "/profile")
        return document

    def clock_now(self) -> str:
        """The fake's current instant (ISO 8601, UTC, milliseconds)."""
        now: str = self.call("GET", "/clock")["now"]
        return now

    def advance_clock(self, seconds: float) -> None:
        """Move the fake's time forward."""
        self._post("/clock/advance", {"seconds": seconds})

    def requests(
        self,
        page: int = 0,
        size: int = 50,
        *,
        status: int | str | None = None,
        path: str | None = None,
    ) -> dict[str, Any]:
        """The request log, newest first: ``{"total", "requests": [...], ...}``."""
        import urllib.parse

        query = {"page": page, "size": size, "status": status, "path": path}
        text = urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        found: dict[str, Any] = self.call("GET", "/requests?" + text)
        return found

    def clear_requests(self) -> None:
        """Empty the request log."""
        self.call("DELETE", "/requests")

    def add_fault(self, endpoint: str = "any", **spec: Any) -> dict[str, Any]:
        """Add a fault rule; returns it with its id."""
        return self.faults.add(endpoint, **spec)

    def remove_fault(self, rule_id: str) -> None:
        """Remove one fault rule."""
        self.faults.remove(rule_id)

    def clear_faults(self) -> None:
        """Remove every fault rule and switch the rate limit off."""
        self.faults.clear()

    def set_rate_limit(self, on: bool) -> None:
        """Switch the GraphQL rate limit on or off."""
        self.faults.set_rate_limit(on)

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self.call(
            "POST", path, {k: v for k, v in body.items() if v is not None}
        )
        return answer


def _json(status: int, content: bytes) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        raise ControlError(
            status, "NOT_JSON", "the control API answered something that is not JSON"
        ) from None
