"""The independent deployment is independent, follows the documented clauses and makes the
choices it declares where the documentation is silent."""

from __future__ import annotations

import ast
import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from . import deployment as module
from .deployment import (
    BROKEN_RULES,
    INDEPENDENT_CHOICES,
    IndependentDeployment,
    running_independent_deployment,
)
from .open_choices import FURTHER_CHOICES, merged_over

CONTROL_SWITCHES = {"removal_ignored", "pat_expires", "approval_skipped"}
"""Switches whose rule needs the control API to be seen (their test drives it)."""

LIST = (
    "{ viewer { id name email personalAccessTokens { id name token createdDate lastUsedDate } } }"
)


class Clock:
    """A clock a test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_790_000_000.25

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def deployment(clock: Clock) -> Iterator[IndependentDeployment]:
    with running_independent_deployment(clock=clock) as running:
        yield running


def graphql(
    deployment: IndependentDeployment, query: str, bearer: str | None = None
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    return httpx.post(deployment.world["graphql_url"], json={"query": query}, headers=headers)


def create(deployment: IndependentDeployment, name: str, bearer: str | None = None) -> Any:
    organization = deployment.world["organization_id"]
    query = (
        "mutation { createPersonalAccessToken(input: "
        f"{{name: {json.dumps(name)}, organizationId: {json.dumps(organization)}}}) "
        "{ id name token createdDate lastUsedDate } }"
    )
    return graphql(deployment, query, bearer or deployment.world["admin_token"])


def listing(deployment: IndependentDeployment, key: str = "admin_token") -> list[dict[str, Any]]:
    answer = graphql(deployment, LIST, deployment.world[key])
    assert answer.status_code == 200, answer.text
    tokens: list[dict[str, Any]] = answer.json()["data"]["viewer"]["personalAccessTokens"]
    return tokens


def hubs(deployment: IndependentDeployment, **params: int) -> httpx.Response:
    return httpx.get(
        deployment.world["base_url"] + "/v2/content/hubs",
        params=params,
        headers={"Authorization": "Bearer " + deployment.world["admin_token"]},
    )


# -- independence -----------------------------------------------------------------------------


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` or ``from`` statement of ``path`` names (top level or not)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def relative_imports(path: Path) -> set[str]:
    """The sibling modules a ``from . import`` or ``from .name import`` of ``path`` names."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            names.update([node.module] if node.module else [a.name for a in node.names])
    return names


def test_the_deployment_imports_nothing_of_patgate() -> None:
    folder = Path(module.__file__).parent
    imported = imported_modules(Path(module.__file__))
    assert imported, "the import reader found no import at all"
    assert {"graphql", "jwt", "http.server"} <= imported
    # Its own modules: what it imports of its folder is read too, and imports nothing more.
    assert relative_imports(Path(module.__file__)) == {"open_choices"}
    assert relative_imports(folder / "open_choices.py") == set()
    assert "datetime" in imported_modules(folder / "open_choices.py")
    for name in ("__init__.py", "open_choices.py"):
        imported |= imported_modules(folder / name)
    assert not [name for name in imported if name.split(".")[0] in ("patgate", "tests")]


def test_the_second_client_imports_only_what_its_user_has() -> None:
    # A user of the deployment has its answers, not its code nor patgate's.
    path = Path(module.__file__).parent / "second_client.py"
    imported = imported_modules(path)
    assert "httpx" in imported
    assert not [name for name in imported if name.split(".")[0] in ("patgate", "tests")]
    assert relative_imports(path) == set()


def test_the_import_reader_sees_a_sibling_import(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from . import deployment\n\ndef later():\n    from .open_choices import x\n",
        encoding="utf-8",
    )
    assert relative_imports(planted) == {"deployment", "open_choices"}


def test_the_import_reader_sees_a_patgate_import_anywhere(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import json\n\ndef later():\n    from patgate.fake import clock\n", encoding="utf-8"
    )
    assert "patgate.fake" in imported_modules(planted)


# -- documented clauses -------------------------------------------------------------------------


def test_an_admin_creates_lists_masked_and_deletes(deployment: IndependentDeployment) -> None:
    answer = create(deployment, "ci")
    assert answer.status_code == 200, answer.text
    created = answer.json()["data"]["createPersonalAccessToken"]
    assert created["lastUsedDate"] is None
    assert created["createdDate"] == "2026-09-21T14:13:20.250Z"  # documented milliseconds
    listed = {token["id"]: token["token"] for token in listing(deployment)}
    assert created["token"] not in listed.values()
    assert listed[created["id"]].rstrip("*") == created["token"][: len(module.PAT_PREFIX) + 4]
    field = f'deletePersonalAccessToken(input: {{id: "{created["id"]}"}})'
    delete = graphql(
        deployment, f"mutation {{ {field} {{ id deleted }} }}", deployment.world["admin_token"]
    )
    assert delete.json() == {
        "data": {"deletePersonalAccessToken": {"id": created["id"], "deleted": True}}
    }
    assert created["id"] not in {token["id"] for token in listing(deployment)}
    refused = graphql(deployment, LIST, created["token"])
    assert refused.status_code == 401


def test_a_sixth_token_is_refused(deployment: IndependentDeployment) -> None:
    for number in range(4):  # the admin holds one already
        assert create(deployment, f"t{number}").json()["data"]["createPersonalAccessToken"]
    answer = create(deployment, "sixth")
    refusal = INDEPENDENT_CHOICES["refusals"]["token_limit"]
    assert answer.status_code == 200  # refused inside an executed document
    assert answer.json()["data"] == {"createPersonalAccessToken": None}
    assert answer.json()["errors"][0]["extensions"]["code"] == refusal["code"]
    assert len(listing(deployment)) == 5


def test_a_member_cannot_create_and_cannot_delete_the_admins_token(
    deployment: IndependentDeployment,
) -> None:
    answer = create(deployment, "mine", deployment.world["member_token"])
    assert answer.json()["errors"][0]["extensions"]["code"] == "PERMISSION_DENIED"
    assert len(listing(deployment, "member_token")) == 1
    admin_token_id = listing(deployment)[0]["id"]
    delete = graphql(
        deployment,
        f'mutation {{ deletePersonalAccessToken(input: {{id: "{admin_token_id}"}}) {{ id }} }}',
        deployment.world["member_token"],
    )
    assert delete.json()["data"] == {"deletePersonalAccessToken": None}
    assert admin_token_id in {token["id"] for token in listing(deployment)}


def test_a_pending_token_is_listed_and_refused_until_approved(
    deployment: IndependentDeployment,
) -> None:
    token_id, value = deployment.state.request_token(
        deployment.users["member"], "asked in the UI", deployment.world["organization_id"]
    )
    assert token_id in {token["id"] for token in listing(deployment, "member_token")}
    assert graphql(deployment, LIST, value).status_code == 401
    deployment.state.approve(token_id)
    assert graphql(deployment, LIST, value).status_code == 200


def test_removed_and_unpermitted_users(deployment: IndependentDeployment) -> None:
    assert graphql(deployment, LIST, deployment.world["removed_token"]).status_code == 403
    assert graphql(deployment, LIST, deployment.world["unpermitted_token"]).status_code == 200
    answer = httpx.get(
        deployment.world["base_url"] + "/v2/content/hubs",
        headers={"Authorization": "Bearer " + deployment.world["unpermitted_token"]},
    )
    assert answer.status_code == 403


def client_token(deployment: IndependentDeployment) -> dict[str, Any]:
    answer = httpx.post(
        deployment.world["auth_url"] + "/oauth/token",
        data={
            "client_id": deployment.world["client_id"],
            "client_secret": deployment.world["client_secret"],
            "grant_type": "client_credentials",
        },
    )
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_a_client_token_works_on_the_content_api_until_it_expires(
    deployment: IndependentDeployment, clock: Clock
) -> None:
    issued = client_token(deployment)
    assert issued["expires_in"] == INDEPENDENT_CHOICES["client_token"]["expires_in"] == 3600
    assert issued["token_type"] == "bearer"
    assert "session_expires_in" in issued
    headers = {"Authorization": "Bearer " + issued["access_token"]}
    url = deployment.world["base_url"] + "/v2/content/hubs"
    assert httpx.get(url, headers=headers).status_code == 200
    clock.now += 3599
    assert httpx.get(url, headers=headers).status_code == 200
    clock.now += 1
    assert httpx.get(url, headers=headers).status_code == 401
    wrong = httpx.post(
        deployment.world["auth_url"] + "/oauth/token",
        data={
            "client_id": deployment.world["client_id"],
            "client_secret": "no",
            "grant_type": "client_credentials",
        },
    )
    assert wrong.status_code == 400


# -- the choices it declares --------------------------------------------------------------------


def test_last_used_date_is_in_seconds_and_moves_at_most_once_a_minute(
    deployment: IndependentDeployment, clock: Clock
) -> None:
    value = create(deployment, "used").json()["data"]["createPersonalAccessToken"]["token"]
    assert listing(deployment)[0]["lastUsedDate"] is None
    graphql(deployment, LIST, value)
    first = listing(deployment)[0]["lastUsedDate"]
    assert first == "2026-09-21T14:13:20Z"  # the clock's second, no fraction
    clock.now += 59
    graphql(deployment, LIST, value)
    assert listing(deployment)[0]["lastUsedDate"] == first
    clock.now += 1
    graphql(deployment, LIST, value)
    assert listing(deployment)[0]["lastUsedDate"] == "2026-09-21T14:14:20Z"


def test_the_listing_is_newest_first(deployment: IndependentDeployment, clock: Clock) -> None:
    for name in ("older", "newer"):
        clock.now += 1
        create(deployment, name)
    assert [token["name"] for token in listing(deployment)] == ["newer", "older", "admin key"]


def test_a_name_of_more_than_100_characters_is_invalid(deployment: IndependentDeployment) -> None:
    assert create(deployment, "n" * 100).status_code == 200
    answer = create(deployment, "n" * 101)
    assert answer.json()["data"] == {"createPersonalAccessToken": None}
    assert answer.json()["errors"][0]["extensions"]["code"] == "INVALID_ARGUMENT"


def test_pages_default_to_10_and_stop_at_50(deployment: IndependentDeployment) -> None:
    assert hubs(deployment).json()["page"]["size"] == 10
    assert hubs(deployment, size=50).json()["page"]["size"] == 50
    refused = hubs(deployment, size=51)
    assert refused.status_code == 422
    assert refused.json() == {
        "errors": [{"code": "INVALID_ARGUMENT", "message": "The input is not valid."}]
    }
    page = hubs(deployment, page=0, size=1).json()
    assert page["page"] == {"size": 1, "totalElements": 3, "totalPages": 3, "number": 0}
    (hub,) = page["_embedded"]["hubs"]
    assert list(hub) == [*INDEPENDENT_CHOICES["hubs"]["fields"], "_links"]
    assert list(hub["_links"]) == INDEPENDENT_CHOICES["hubs"]["links"]


def test_the_rate_limit_answers_429_past_600_a_minute(
    deployment: IndependentDeployment, clock: Clock
) -> None:
    limit = INDEPENDENT_CHOICES["rate_limit"]["requests_per_minute"]
    bearer = deployment.world["member_token"]
    deployment.state.admit("Bearer " + bearer)  # the state's own count, without 600 requests
    for _ in range(limit - 2):
        deployment.state.admit("Bearer " + bearer)
    assert graphql(deployment, LIST, bearer).status_code == 200
    refused = graphql(deployment, LIST, bearer)
    assert refused.status_code == 429
    assert refused.headers["Retry-After"] == "60"
    clock.now += 30
    assert graphql(deployment, LIST, bearer).headers["Retry-After"] == "30"
    clock.now += 30
    assert graphql(deployment, LIST, bearer).status_code == 200


def test_choices_are_copies_in_the_profile_contracts_shape(
    deployment: IndependentDeployment,
) -> None:
    deployment.choices["pages"]["default_size"] = 99
    assert INDEPENDENT_CHOICES["pages"]["default_size"] == 10
    assert deployment.choices["profile_version"] == 1
    assert set(INDEPENDENT_CHOICES) == {
        "profile_version",
        "delete_result",
        "masked_token",
        "refusals",
        "client_token",
        "hubs",
        "pages",
        "rate_limit",
        "pat_name",
        "listing_order",
        "date_precision",
        "last_used_date",
    }


def test_an_unknown_switch_is_refused() -> None:
    with pytest.raises(ValueError, match="sixth_token"), running_independent_deployment("sixth"):
        pass


@pytest.mark.parametrize("switch", sorted(set(BROKEN_RULES) - CONTROL_SWITCHES))
def test_each_switch_breaks_its_rule(switch: str) -> None:
    with running_independent_deployment(switch) as broken:
        if switch == "sixth_token":
            for number in range(5):
                assert create(broken, f"t{number}").status_code == 200
            assert len(listing(broken)) == 6
        elif switch == "unmasked_listing":
            value = create(broken, "shown").json()["data"]["createPersonalAccessToken"]["token"]
            assert value in {token["token"] for token in listing(broken)}
        elif switch == "member_creates":
            answer = create(broken, "member's", broken.world["member_token"])
            assert answer.json()["data"]["createPersonalAccessToken"]["token"]
        else:
            value = create(broken, "used").json()["data"]["createPersonalAccessToken"]["token"]
            graphql(broken, LIST, value)
            assert {token["lastUsedDate"] for token in listing(broken)} == {None}


def test_the_server_stops_on_exit() -> None:
    with running_independent_deployment() as running:
        url = running.world["graphql_url"]
    with pytest.raises(httpx.TransportError):
        httpx.post(url, json={"query": LIST}, timeout=2)


def test_choices_can_be_changed_and_say_what_is_served(clock: Clock) -> None:
    changes = {
        "delete_result": {"shape": "boolean"},
        "masked_token": {"visible_characters": 6},
        "hubs": {"fields": ["id", "name", "settings"], "links": ["self", "hub"]},
        "listing_order": "name_ascending",
    }
    with running_independent_deployment(clock=clock, choices=changes) as changed:
        assert changed.choices["masked_token"] == {
            "visible_characters": 6,
            "mask_character": "*",
            "mask_width": 16,
        }
        made = create(changed, "a first").json()["data"]["createPersonalAccessToken"]
        tokens = listing(changed)
        assert [token["name"] for token in tokens] == ["a first", "admin key"]
        assert tokens[0]["token"] == made["token"][: len(module.PAT_PREFIX) + 6] + "*" * 16
        delete = graphql(
            changed,
            f'mutation {{ deletePersonalAccessToken(input: {{id: "{made["id"]}"}}) }}',
            changed.world["admin_token"],
        )
        assert delete.json() == {"data": {"deletePersonalAccessToken": True}}
        (hub,) = hubs(changed, size=1).json()["_embedded"]["hubs"]
        assert list(hub) == ["id", "name", "settings", "_links"]
        assert list(hub["_links"]) == ["self", "hub"]


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"page": {"default_size": 5}}, "unknown field page"),
        ({"pages": {"default": 5}}, "unknown field pages.default"),
        ({"hubs": {"fields": ["id", "colour"]}}, "colour"),
        ({"masked_token": {"mask_character": "#"}}, "asterisks|'\\*'"),
        ({"listing_order": "random"}, "listing_order"),
    ],
)
def test_choices_it_cannot_serve_are_refused(changes: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=named), running_independent_deployment(choices=changes):
        pass


def control(deployment: IndependentDeployment, path: str, body: dict[str, Any]) -> Any:
    answer = httpx.post(
        deployment.world["control_url"] + path,
        json=body,
        headers={"Authorization": "Bearer " + deployment.world["control_token"]},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_control_api_sets_the_stage_and_wants_its_key(clock: Clock) -> None:
    with running_independent_deployment(clock=clock, control=True) as staged:
        world = staged.world
        refused = httpx.post(world["control_url"] + "/clock/advance", json={"seconds": 1})
        assert refused.status_code == 401
        ids = httpx.get(
            world["control_url"] + "/world",
            headers={"Authorization": "Bearer " + world["control_token"]},
        ).json()
        assert ids == {"organization_id": world["organization_id"], **staged.users}
        requested = control(staged, "/token-requests", {"user_id": ids["member"], "name": "ui"})
        assert requested["status"] == "pending"
        assert graphql(staged, LIST, requested["value"]).status_code == 401
        control(staged, "/token-requests/approve", {"token_id": requested["id"]})
        assert graphql(staged, LIST, requested["value"]).status_code == 200
        control(staged, "/users/remove", {"user_id": ids["member"]})
        assert graphql(staged, LIST, world["member_token"]).status_code == 403
        control(staged, "/users/role", {"user_id": ids["member"], "role": "member"})
        assert graphql(staged, LIST, world["member_token"]).status_code == 200
        control(staged, "/clock/advance", {"seconds": 400 * 86400})
        assert graphql(staged, LIST, world["admin_token"]).status_code == 200
    with running_independent_deployment() as plain:
        assert "control_url" not in plain.world


@pytest.mark.parametrize("switch", sorted(CONTROL_SWITCHES))
def test_each_control_switch_breaks_its_rule(switch: str, clock: Clock) -> None:
    with running_independent_deployment(switch, clock=clock, control=True) as broken:
        world = broken.world
        if switch == "removal_ignored":
            assert graphql(broken, LIST, world["removed_token"]).status_code == 200
        elif switch == "pat_expires":
            control(broken, "/clock/advance", {"seconds": 86401})
            assert graphql(broken, LIST, world["admin_token"]).status_code == 401
        else:
            member = broken.users["member"]
            made = control(broken, "/token-requests", {"user_id": member, "name": "ui"})
            assert made["status"] == "active"


# -- different from the fake ------------------------------------------------------------------


def probe(client: httpx.Client, world: dict[str, str]) -> dict[str, Any]:
    """What one client sees of the open points, asking only documented operations (and
    introspection): the same code for the fake and for this deployment."""

    def ask(query: str, key: str = "admin_token") -> httpx.Response:
        auth = {"Authorization": "Bearer " + world[key]}
        return client.post(world["graphql_url"], json={"query": query}, headers=auth)

    def refusal(answer: httpx.Response) -> tuple[int, str, str]:
        error = answer.json()["errors"][0]
        return answer.status_code, error["extensions"]["code"], error["message"]

    def create(name: str, key: str = "admin_token") -> httpx.Response:
        organization = json.dumps(world["organization_id"])
        return ask(
            f"mutation {{ createPersonalAccessToken(input: {{name: {json.dumps(name)}, "
            f"organizationId: {organization}}}) {{ id name token }} }}",
            key,
        )

    seen: dict[str, Any] = {}
    roots = ask("{ __schema { mutationType { fields { name type { kind name } } } } }").json()
    (delete,) = [
        field["type"]
        for field in roots["data"]["__schema"]["mutationType"]["fields"]
        if field["name"] == "deletePersonalAccessToken"
    ]
    seen["delete_result"] = delete["kind"]
    selection = " { __typename }" if delete["kind"] == "OBJECT" else ""
    masked = next(t["token"] for t in listing_of(ask))
    start = masked.rstrip("*")
    seen["masked_token"] = (len(start) - len(world["pat_prefix"]), len(masked) - len(start))
    seen["refusals.forbidden"] = refusal(create("by a member", "member_token"))
    seen["refusals.not_found"] = refusal(
        ask(f'mutation {{ deletePersonalAccessToken(input: {{id: "nope"}}){selection} }}')
    )
    issued = client.post(
        world["auth_url"] + "/oauth/token",
        data={
            "client_id": world["client_id"],
            "client_secret": world["client_secret"],
            "grant_type": "client_credentials",
        },
    ).json()
    seen["client_token"] = (issued["expires_in"], issued["token_type"])
    hubs_url = world["base_url"] + "/v2/content/hubs"
    auth = {"Authorization": "Bearer " + world["admin_token"]}
    page = client.get(hubs_url, headers=auth).json()
    largest = client.get(hubs_url, params={"size": 1000}, headers=auth)
    # A size over the maximum: refused (the status), or cut down to it (the size served).
    served = largest.json()["page"]["size"] if largest.status_code == 200 else None
    seen["pages"] = (page["page"]["size"], largest.status_code, served)
    hub = page["_embedded"]["hubs"][0]
    seen["hubs"] = (sorted(hub), sorted(hub["_links"]))
    long_name = create("n" * 101)
    made = [create("first").json(), create("second").json()]
    names = [t["name"] for t in listing_of(ask) if t["name"] in ("first", "second")]
    seen["listing_order"] = names
    seen["pat_name"] = "refused" if long_name.json().get("errors") else "accepted"
    value = made[0]["data"]["createPersonalAccessToken"]["token"]
    ask("{ viewer { id } }", "admin_token")
    client.post(
        world["graphql_url"],
        json={"query": "{ viewer { id } }"},
        headers={"Authorization": "Bearer " + value},
    )
    (used,) = [t["lastUsedDate"] for t in listing_of(ask) if t["name"] == "first"]
    seen["date_precision"] = "milliseconds" if "." in used else "seconds"
    return seen


def listing_of(ask: Any) -> list[dict[str, Any]]:
    answer = ask("{ viewer { personalAccessTokens { name token lastUsedDate } } }")
    tokens: list[dict[str, Any]] = answer.json()["data"]["viewer"]["personalAccessTokens"]
    return tokens


def test_it_differs_from_the_fake_on_at_least_8_open_points() -> None:
    from patgate import Fake

    fake = Fake()
    with httpx.Client(transport=fake.httpx_transport()) as client:
        fakes = probe(client, fake.world)
    with running_independent_deployment() as deployment, httpx.Client() as client:
        ours = probe(client, deployment.world)
    differing = sorted(point for point in ours if ours[point] != fakes[point])
    assert len(differing) >= 8, (differing, ours, fakes)
    # And what it shows is what it declares.
    choices = INDEPENDENT_CHOICES
    assert ours["delete_result"] == "OBJECT"
    mask = choices["masked_token"]
    assert ours["masked_token"] == (mask["visible_characters"], mask["mask_width"])
    forbidden = choices["refusals"]["forbidden"]
    assert ours["refusals.forbidden"] == (
        200,  # refused inside an executed document, like the fake
        forbidden["code"],
        forbidden["message"],
    )
    assert ours["client_token"] == (3600, "bearer")
    assert ours["pages"] == (10, 422, None)
    assert ours["hubs"] == (sorted([*choices["hubs"]["fields"], "_links"]), ["self"])
    assert ours["listing_order"] == ["second", "first"]
    assert ours["pat_name"] == "refused"
    assert ours["date_precision"] == "seconds"


def test_its_choices_are_a_profile_patgate_loads_as_they_are() -> None:
    # The profile loader arrives with the profile; until then there is nothing to load into.
    profile = pytest.importorskip("patgate.fake.profile")
    chosen = merged_over(INDEPENDENT_CHOICES, FURTHER_CHOICES)
    document = profile.load_profile(copy.deepcopy(chosen)).as_document()
    assert {key: document[key] for key in chosen} == chosen
