"""Every ``_links`` href the fake returns is served: a breadth-first walk from the hubs listing."""

from __future__ import annotations

import re
from collections import deque
from typing import Any

import yaml

from patgate.basics.resources import specs_dir
from patgate.fake.world import DefaultWorld
from patgate.wire import WireApp, WireRequest
from tests.wire.conftest import HUBS_URL, URLS

# RFC 6570 form-style expansions ({?page,size}, {&sort}) vanish when no variable is given.
_OPTIONAL = re.compile(r"\{[?&][^}]*\}")
_REQUIRED = re.compile(r"\{[^}]*\}")


def _hrefs(body: Any) -> list[str]:
    found: list[str] = []
    if isinstance(body, dict):
        for key, value in body.items():
            if key == "_links" and isinstance(value, dict):
                found += [link["href"] for link in value.values() if isinstance(link, dict)]
            else:
                found += _hrefs(value)
    elif isinstance(body, list):
        for item in body:
            found += _hrefs(item)
    return found


def walk(app: WireApp, bearer: str, start: str) -> tuple[dict[str, int], list[str]]:
    """Status of every URL reached from ``start``, and the links that could not be followed."""
    seen: dict[str, int] = {}
    problems: list[str] = []
    queue = deque([start])
    while queue:
        url = queue.popleft()
        if url in seen:
            continue
        response = app(WireRequest("GET", url, (("Authorization", f"Bearer {bearer}"),)))
        seen[url] = 0 if response is None else response.status
        if response is None or response.status != 200:
            problems.append(f"{url}: {seen[url]}")
            continue
        for href in _hrefs(response.json()):
            expanded = _OPTIONAL.sub("", href)
            if _REQUIRED.search(expanded):
                problems.append(f"{href}: a required template variable")
            elif not expanded.startswith(URLS.base_url + "/"):
                problems.append(f"{href}: outside the fake")
            else:
                queue.append(expanded)
    return seen, problems


def test_every_link_resolves(app: WireApp, world: DefaultWorld) -> None:
    seen, problems = walk(app, world.admin_token, f"{HUBS_URL}?size=1")
    assert problems == []
    # Not a vacuous walk: through the listing's pages it reached every hub and every link
    # each hub advertises, whatever the relations are.
    reached = {re.sub(r"\?.*", "", url) for url in seen}
    request = WireRequest(
        "GET", f"{HUBS_URL}?size=100", (("Authorization", f"Bearer {world.admin_token}"),)
    )
    response = app(request)
    assert response is not None
    hubs = response.json()["_embedded"]["hubs"]
    assert hubs
    for hub in hubs:
        advertised = {_OPTIONAL.sub("", link["href"]) for link in hub["_links"].values()}
        assert advertised - reached == set(), hub["id"]


def test_the_hub_links_each_relation_the_sdk_looks_up(app: WireApp, world: DefaultWorld) -> None:
    request = WireRequest("GET", HUBS_URL, (("Authorization", f"Bearer {world.admin_token}"),))
    response = app(request)
    assert response is not None
    hub = response.json()["_embedded"]["hubs"][0]
    relations = {
        "self",
        "hub",
        "content-repositories",
        "content-types",
        "list-content-type-schemas",
        "workflow-states",
        "extensions",
        "webhooks",
        "events",
    }
    assert relations <= set(hub["_links"])


def _declared_query_parameters() -> list[tuple[re.Pattern[str], set[str]]]:
    document = yaml.safe_load((specs_dir() / "openapi.yaml").read_text(encoding="utf-8"))
    components = document["components"]["parameters"]
    found = []
    for path, item in document["paths"].items():
        parameters = (
            [
                components[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p
                for p in item["get"]["parameters"]
            ]
            if "get" in item
            else []
        )
        names = {p["name"] for p in parameters if p["in"] == "query"}
        found.append((re.compile(re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(path))), names))
    return found


def test_link_templates_advertise_only_what_the_listing_declares_and_honours(
    app: WireApp, world: DefaultWorld
) -> None:
    seen, _ = walk(app, world.admin_token, f"{HUBS_URL}?size=1")
    declared = _declared_query_parameters()
    templated: dict[str, set[str]] = {}
    for url in seen:
        response = app(WireRequest("GET", url, (("Authorization", f"Bearer {world.admin_token}"),)))
        assert response is not None
        for href in _hrefs(response.json()):
            for expression in re.findall(r"\{[?&]([^}]*)\}", href):
                templated[_OPTIONAL.sub("", href)] = set(expression.split(","))
    assert templated, "the walk met no templated link"
    for href, variables in templated.items():
        path = href.removeprefix(URLS.base_url)
        names = [n for pattern, n in declared if pattern.fullmatch(path)]
        assert names, f"{path} is not in specs/openapi.yaml"
        assert variables <= names[0], f"{href} advertises {variables - names[0]}"
        # And the listing honours each of them: the variable changes the answer.
        auth = (("Authorization", f"Bearer {world.admin_token}"),)
        for variable in variables:
            plain = app(WireRequest("GET", href, auth))
            changed = app(WireRequest("GET", f"{href}?{variable}=1", auth))
            assert plain is not None
            assert changed is not None
            assert changed.status == 200
            assert changed.json()["page"] != plain.json()["page"], f"{variable} is ignored"
