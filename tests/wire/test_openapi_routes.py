"""specs/openapi.yaml describes every path the fake serves, and the fake's answers fit it."""

from __future__ import annotations

import re
from typing import Any

from patgate.fake.world import DefaultWorld
from patgate.service import api_paths
from patgate.wire import WireApp, WireRequest
from tests.specs.test_openapi import component_validator, openapi_document
from tests.wire.conftest import HUBS_URL, URLS
from tests.wire.test_link_walk import walk


def _documented() -> dict[str, Any]:
    paths: dict[str, Any] = openapi_document()["paths"]
    return paths


def test_every_served_rest_path_is_documented_and_nothing_else() -> None:
    served = {path.template for path in api_paths.ALL_PATHS if path is not api_paths.GRAPHQL}
    assert set(_documented()) == served


def _schema_of(template: str) -> str:
    content = _documented()[template]["get"]["responses"]["200"]["content"]
    ref: str = next(iter(content.values()))["schema"]["$ref"]
    return ref.rsplit("/", 1)[-1]


def _template_of(url: str) -> str:
    path = url.removeprefix(URLS.base_url).split("?")[0]
    for template in _documented():
        pattern = re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, path):
            return template
    raise AssertionError(f"{path} is not documented")


def test_every_answer_of_a_link_walk_fits_its_documented_schema(
    app: WireApp, world: DefaultWorld
) -> None:
    seen, problems = walk(app, world.admin_token, HUBS_URL)
    assert problems == []
    checked = set()
    for url in seen:
        template = _template_of(url)
        response = app(WireRequest("GET", url, (("Authorization", f"Bearer {world.admin_token}"),)))
        assert response is not None
        errors = list(component_validator(_schema_of(template)).iter_errors(response.json()))
        assert errors == [], url
        checked.add(template)
    # Not a vacuous walk: the listing, a hub and every listing a hub links were checked.
    hub = next(url for url in seen if _template_of(url) == api_paths.HUB.template)
    answer = app(WireRequest("GET", hub, (("Authorization", f"Bearer {world.admin_token}"),)))
    assert answer is not None
    hrefs = [link["href"] for link in answer.json()["_links"].values()]
    linked = {_template_of(re.sub(r"\{[?&][^}]*\}", "", href)) for href in hrefs}
    assert {api_paths.HUBS.template, *linked} <= checked
