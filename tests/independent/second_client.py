"""A client of the second independent deployment, written as its user would write it.

It knows the deployment from its target file (URLs, credentials, organization id) and from
what the deployment does where the vendor's documentation is silent, and relies on each of
those eleven choices: one function per choice, each raising an ``AssertionError`` that names
the choice when the deployment answers otherwise. It imports nothing of patgate nor of the
deployment (a user has neither); :data:`RELIANCES` names each function by the choice's entry
in ``SECOND_CHOICE_PARTS``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import httpx

__all__ = ["RELIANCES", "SecondClient"]

PAGE_MAXIMUM = 50
"""The most hubs a page holds; asking more is served this many."""
TOKEN_CAP = 5
"""Documented: "PATs per user: Up to 5"."""
CLIENT_CREDENTIAL_REFUSED = "a user credential is required"
LAST_USED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$")
"""How lastUsedDate reads: microseconds, and UTC named +00:00."""
PROBLEM_KEYS = {"type", "title", "status", "detail"}


def relied(condition: bool, choice: str, what: str) -> None:
    """Raise an ``AssertionError`` naming ``choice`` when what the client relies on fails."""
    if not condition:
        raise AssertionError(f"choice {choice}: {what}")


class SecondClient:
    """The few calls the client makes, each given its bearer."""

    def __init__(self, world: Mapping[str, str], http: httpx.Client) -> None:
        self.world = world
        self.http = http

    def token_answer(self) -> dict[str, Any]:
        """The client-credential token answer (raises on a refusal)."""
        answer = self.http.post(
            self.world["auth_url"] + "/oauth/token",
            data={
                "client_id": self.world["client_id"],
                "client_secret": self.world["client_secret"],
                "grant_type": "client_credentials",
            },
        )
        answer.raise_for_status()
        body: dict[str, Any] = answer.json()
        return body

    def hubs(self, bearer: str | None, **params: int) -> httpx.Response:
        """A page of hubs (``page``, ``size``), with ``bearer`` or no token."""
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        return self.http.get(
            self.world["base_url"] + "/v2/content/hubs", params=params, headers=headers
        )

    def graphql(self, query: str, bearer: str) -> httpx.Response:
        """One GraphQL document."""
        headers = {"Authorization": f"Bearer {bearer}"}
        return self.http.post(self.world["graphql_url"], json={"query": query}, headers=headers)

    def create(self, name: str, bearer: str) -> httpx.Response:
        """Create a PAT named ``name`` in the target's organization."""
        organization = json.dumps(self.world["organization_id"])
        return self.graphql(
            f"mutation {{ createPersonalAccessToken(input: {{name: {json.dumps(name)}, "
            f"organizationId: {organization}}}) {{ id token }} }}",
            bearer,
        )

    def delete(self, token_id: str, bearer: str) -> None:
        """Delete a PAT by id, whatever the delete's result type."""
        # The delete's result shape is the deployment's own: select nothing, read errors.
        answer = self.graphql(
            f"mutation {{ deletePersonalAccessToken(input: {{id: {json.dumps(token_id)}}}) "
            "{ __typename } }",
            bearer,
        )
        if answer.json().get("errors"):  # a Boolean result takes no selection
            self.graphql(
                f"mutation {{ deletePersonalAccessToken(input: {{id: {json.dumps(token_id)}}}) }}",
                bearer,
            )

    def tokens(self, bearer: str) -> list[dict[str, Any]]:
        """The bearer's PATs (id, lastUsedDate)."""
        answer = self.graphql("{ viewer { personalAccessTokens { id lastUsedDate } } }", bearer)
        listed: list[dict[str, Any]] = answer.json()["data"]["viewer"]["personalAccessTokens"]
        return listed


@contextmanager
def session(world: Mapping[str, str]) -> Iterator[SecondClient]:
    """A client on its own httpx connection pool, closed at the end."""
    with httpx.Client(timeout=10) as http:
        yield SecondClient(world, http)


@contextmanager
def created_tokens(client: SecondClient, bearer: str) -> Iterator[list[str]]:
    """Ids of the tokens a reliance creates with ``bearer``, each deleted at the end."""
    made: list[str] = []
    try:
        yield made
    finally:
        for token_id in made:
            client.delete(token_id, bearer)


def _created_id(answer: httpx.Response) -> str | None:
    made = (answer.json().get("data") or {}).get("createPersonalAccessToken")
    return str(made["id"]) if made else None


# -- one function per choice --------------------------------------------------------------------


def token_answer_has_no_token_type(world: Mapping[str, str]) -> None:
    """The token answer carries no token_type: the client always sends Bearer."""
    with session(world) as client:
        answer = client.token_answer()
        relied(
            "token_type" not in answer,
            "token_type_absent (client_token.token_type: null)",
            f"the token answer carries token_type {answer.get('token_type')!r}",
        )
        page = client.hubs(answer["access_token"])
        relied(page.status_code == 200, "token_type_absent", "a Bearer token is refused")


def token_answer_has_scope_and_session(world: Mapping[str, str]) -> str:
    """The client reads what its token may do (``scope``) and the session's lifetime."""
    with session(world) as client:
        answer = client.token_answer()
    choice = "token_extra_fields (shapes.token.body.keys scope, session_expires_in)"
    scope = answer.get("scope")
    relied(isinstance(scope, str) and bool(scope), choice, f"no scope string: {scope!r}")
    session_expires_in = answer.get("session_expires_in")
    relied(type(session_expires_in) is int, choice, "session_expires_in is not an integer")
    return str(scope)


def content_errors_are_problem_details(world: Mapping[str, str]) -> dict[str, Any]:
    """A content API refusal is RFC 9457 problem details, read for its ``detail``."""
    choice = "problem_json_errors (content_errors.format: problem+json)"
    with session(world) as client:
        for refused in (client.hubs(None), client.hubs(world["admin_token"], page=-1)):
            kind = refused.headers.get("content-type", "").split(";")[0]
            relied(kind == "application/problem+json", choice, f"a refusal is {kind!r}")
            problem: dict[str, Any] = refused.json()
            relied(set(problem) >= PROBLEM_KEYS, choice, f"no problem details: {problem}")
            relied(problem["status"] == refused.status_code, choice, "status disagrees")
            relied(isinstance(problem["detail"], str), choice, "detail is not text")
    return problem


def last_used_date_has_microseconds(world: Mapping[str, str]) -> datetime:
    """The client parses lastUsedDate to the microsecond, UTC written +00:00."""
    choice = "last_used_microseconds (date_precision/date_offset.lastUsedDate)"
    admin = world["admin_token"]
    with session(world) as client, created_tokens(client, admin) as made:
        created = client.create("last used", admin)
        token_id = _created_id(created)
        relied(token_id is not None, choice, f"the admin could not create: {created.text}")
        made.append(str(token_id))
        value = created.json()["data"]["createPersonalAccessToken"]["token"]
        client.graphql("{ viewer { id } }", value)  # one use
        (used,) = [t["lastUsedDate"] for t in client.tokens(admin) if t["id"] == token_id]
    relied(isinstance(used, str) and bool(LAST_USED.match(used)), choice, f"read {used!r}")
    return datetime.fromisoformat(used)


def sixth_token_is_a_409(world: Mapping[str, str]) -> None:
    """Past the cap, the create answers HTTP 409: the client tells the user at once."""
    choice = "refusal_status (graphql.refusal_status: refusal, token_limit 409)"
    admin = world["admin_token"]
    with session(world) as client, created_tokens(client, admin) as made:
        for number in range(TOKEN_CAP - len(client.tokens(admin))):
            made_id = _created_id(client.create(f"up to the cap {number}", admin))
            relied(made_id is not None, choice, "a create under the cap failed")
            made.append(str(made_id))
        sixth = client.create("one too many", admin)
        if (extra := _created_id(sixth)) is not None:
            made.append(extra)
        relied(sixth.status_code == 409, choice, f"a sixth create answered {sixth.status_code}")
        relied(bool(sixth.json().get("errors")), choice, "the 409 carries no errors")


def page_over_the_maximum_is_cut(world: Mapping[str, str]) -> int:
    """Asking 500 hubs at once is served the maximum, not refused."""
    choice = "over_maximum_cut (pages.over_maximum: cut)"
    with session(world) as client:
        answer = client.hubs(world["admin_token"], size=500)
    relied(answer.status_code == 200, choice, f"size=500 answered {answer.status_code}")
    size = int(answer.json()["page"]["size"])
    relied(size == PAGE_MAXIMUM, choice, f"served a page of {size}, not {PAGE_MAXIMUM}")
    return size


def hubs_come_by_name_descending(world: Mapping[str, str]) -> list[str]:
    """The client shows hubs as served (it sorts nothing): by name, Z to A."""
    with session(world) as client:
        page = client.hubs(world["admin_token"]).json()
    names = [hub["name"] for hub in page["_embedded"]["hubs"]]
    choice = "hubs_name_descending (hubs.order: name_descending)"
    relied(len(names) >= 2, choice, "fewer than two hubs: no order to rely on")
    relied(names == sorted(names, reverse=True), choice, f"hubs came as {names}")
    return names


def hubs_carry_region_and_plan(world: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """The client files each hub under its region and plan."""
    choice = "hub_extra_fields (shapes.hub.body.keys region, plan)"
    filed: dict[str, tuple[str, str]] = {}
    with session(world) as client:
        for hub in client.hubs(world["admin_token"]).json()["_embedded"]["hubs"]:
            region, plan = hub.get("region"), hub.get("plan")
            ok = isinstance(region, str) and isinstance(plan, str) and bool(region and plan)
            relied(ok, choice, f"hub {hub['name']!r} has region {region!r}, plan {plan!r}")
            filed[hub["id"]] = (str(region), str(plan))
    relied(bool(filed), choice, "no hub listed")
    return filed


def hubs_paged_by_number(world: Mapping[str, str]) -> list[str]:
    """The client pages by page.number and page.totalPages; pages carry no paging links
    (it never follows ``_links.next``, and expects no relation it was not written for)."""
    choice = "self_only_pages (pages.links: [self])"
    names: list[str] = []
    with session(world) as client:
        number, total_pages, total = 0, 1, 0
        while number < total_pages:
            page = client.hubs(world["admin_token"], page=number, size=1).json()
            relations = sorted(page["_links"])
            relied(relations == ["self"], choice, f"page {number} links {relations}")
            relied(page["page"]["number"] == number, choice, "served another page")
            total_pages, total = page["page"]["totalPages"], page["page"]["totalElements"]
            names += [hub["name"] for hub in page["_embedded"]["hubs"]]
            number += 1
    relied(len(names) == total, choice, f"{len(names)} hubs on the pages, {total} in all")
    return names


def only_an_admin_pat_creates(world: Mapping[str, str]) -> None:
    """A client-credential token cannot create a PAT ("a user credential is required");
    the client creates with its admin's PAT."""
    choice = "admin_pat_creates (pat_creation.client_credentials: refused)"
    admin = world["admin_token"]
    with session(world) as client:
        client_token = client.token_answer()["access_token"]
        with created_tokens(client, client_token) as stray:
            refused = client.create("by a client token", client_token)
            if (made := _created_id(refused)) is not None:
                stray.append(made)
            errors = refused.json().get("errors") or [{}]
            message = errors[0].get("message")
            relied(made is None, choice, "a client-credential token created a PAT")
            relied(message == CLIENT_CREDENTIAL_REFUSED, choice, f"refused with {message!r}")
            relied(refused.status_code == 403, choice, f"refused with {refused.status_code}")
        with created_tokens(client, admin) as made_ids:
            created = _created_id(client.create("by the admin", admin))
            relied(created is not None, choice, "the admin's PAT could not create")
            made_ids.append(str(created))


def rate_limit_is_announced(world: Mapping[str, str]) -> int:
    """The client paces itself by the announced quota: ``RateLimit-Policy`` for the limit,
    ``RateLimit`` for what is left."""
    choice = "announced_rate_limit (rate_limit.announce: ratelimit_headers)"
    seen: list[dict[str, int]] = []
    with session(world) as client:
        for _ in range(2):
            answer = client.graphql("{ viewer { id } }", world["admin_token"])
            policy = answer.headers.get("RateLimit-Policy", "")
            matched = re.fullmatch(r"(\d+);w=60", policy)
            relied(matched is not None, choice, f"RateLimit-Policy is {policy!r}")
            assert matched is not None
            state = dict(
                (name.strip(), int(value))
                for name, _, value in (
                    part.partition("=") for part in answer.headers.get("RateLimit", "").split(",")
                )
                if value.strip().isdigit()
            )
            relied(set(state) == {"limit", "remaining", "reset"}, choice, f"RateLimit {state}")
            relied(state["limit"] == int(matched.group(1)), choice, "the limits disagree")
            seen.append(state)
    relied(seen[1]["remaining"] < seen[0]["remaining"], choice, "remaining never moves")
    return seen[0]["limit"]


RELIANCES: dict[str, Callable[[Mapping[str, str]], Any]] = {
    "token_type_absent": token_answer_has_no_token_type,
    "token_extra_fields": token_answer_has_scope_and_session,
    "problem_json_errors": content_errors_are_problem_details,
    "last_used_microseconds": last_used_date_has_microseconds,
    "refusal_status": sixth_token_is_a_409,
    "over_maximum_cut": page_over_the_maximum_is_cut,
    "hubs_name_descending": hubs_come_by_name_descending,
    "hub_extra_fields": hubs_carry_region_and_plan,
    "self_only_pages": hubs_paged_by_number,
    "admin_pat_creates": only_an_admin_pat_creates,
    "announced_rate_limit": rate_limit_is_announced,
}
"""Each choice of the second deployment (its name there) and the function relying on it."""
