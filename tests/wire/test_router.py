from __future__ import annotations

import re

import pytest

from patgate.fake.world import DefaultWorld
from patgate.service import api_paths
from patgate.service.api_paths import ApiPath, TemplateError
from patgate.wire import FakeUrls, WireApp, WireRequest, WireResponse
from patgate.wire.content_api import ContentEndpoint
from patgate.wire.endpoint import Call
from patgate.wire.messages import json_response
from patgate.wire.router import Router
from tests.wire.conftest import HUBS_URL, URLS, bearer
from tests.wire.conftest import Call as Send


def test_a_path_parameter_matches_one_segment_and_is_decoded() -> None:
    router: Router[str] = Router()
    router.add("https://h/v2/content/hubs/{hub_id}", "hub")
    router.add("https://h/v2/content/hubs", "hubs")
    found = router.match("https://h/v2/content/hubs/a%20b")
    assert found is not None
    assert (found.target, dict(found.params)) == ("hub", {"hub_id": "a b"})
    assert router.match("https://h/v2/content/hubs/a/b") is None
    hubs = router.match("https://h/v2/content/hubs")
    assert hubs is not None
    assert hubs.target == "hubs"


def test_a_route_added_after_a_match_is_matched_and_the_first_added_wins() -> None:
    router: Router[str] = Router()
    router.add("https://h/x/{id}", "first")
    found = router.match("https://h/x/1")
    assert found is not None
    assert found.target == "first"
    router.add("https://h/y/{id}", "later")
    router.add("https://h/{kind}/{id}", "catch-all")
    later = router.match("https://h/y/2")
    assert later is not None
    assert (later.target, dict(later.params)) == ("later", {"id": "2"})
    other = router.match("https://h/z/3")
    assert other is not None
    assert other.target == "catch-all"
    again = router.match("https://h/x/1")
    assert again is not None
    assert again.target == "first"


def test_a_template_is_routed_once() -> None:
    router: Router[str] = Router()
    router.add("https://h/x/{id}", "one")
    with pytest.raises(ValueError, match="already routed"):
        router.add("https://h/x/{id}", "two")


def test_every_named_path_is_served(app: WireApp) -> None:
    templates = {template for template, _ in app.router}
    for path in api_paths.ALL_PATHS:
        params = {name: "{" + name + "}" for name in path.parameters}
        base = URLS.base_for(path.base)
        assert path.url(base, **params).replace("%7B", "{").replace("%7D", "}") in templates


def test_a_known_path_with_a_parameter_answers_405_with_allow(
    call: Send, world: DefaultWorld
) -> None:
    response = call("DELETE", f"{HUBS_URL}/0123", (bearer(world.admin_token),))
    assert response.status == 405
    assert response.header("allow") == "GET, HEAD, OPTIONS"


class _Echo(ContentEndpoint):
    def respond(self, request: WireRequest, call: Call) -> WireResponse:
        return json_response(200, {"name": call.params["name"], "query": call.query})


def test_mounting_a_route_is_one_call(app: WireApp, world: DefaultWorld) -> None:
    app.mount(app.urls.base_url, "/_patgate/echo/{name}", _Echo(app.deployment, app.urls))
    response = app(WireRequest("GET", "https://api.amplience.net/_patgate/echo/n1?x=1"))
    assert response is not None
    assert response.json() == {"name": "n1", "query": "x=1"}


def test_a_route_mounted_under_the_content_api_is_authorized_first(app: WireApp) -> None:
    app.mount(app.urls.base_url, "/v2/content/mine/{name}", _Echo(app.deployment, app.urls))
    response = app(WireRequest("GET", "https://api.amplience.net/v2/content/mine/n1"))
    assert response is not None
    assert response.status == 401


def test_a_mount_outside_the_fake_bases_is_refused(app: WireApp) -> None:
    with pytest.raises(ValueError, match="base URLs"):
        app.mount("https://elsewhere.test", "/x", _Echo(app.deployment, app.urls))


def test_runner_urls_come_from_the_same_names() -> None:
    urls = FakeUrls()
    assert api_paths.HUBS.url(urls.base_url) == urls.hubs_url
    assert api_paths.TOKEN.url(urls.auth_url) == urls.token_url
    with pytest.raises(TypeError, match="hub_id"):
        api_paths.HUB.url(urls.base_url)


@pytest.mark.parametrize(
    "path",
    [
        "/v2/content/mine/{hubId}",
        "/v2/content/mine/{id}.json",
        "/v2/content/mine/{id",
        "/v2/content/mine/id}",
        "/v2/content/mine/{}",
        "/v2/content/mine/{id}/{id}",
    ],
)
def test_a_template_the_grammar_does_not_understand_is_refused_naming_the_route(
    app: WireApp, path: str
) -> None:
    with pytest.raises(TemplateError, match=re.escape(path)):
        app.mount(app.urls.base_url, path, _Echo(app.deployment, app.urls))
    assert not any(template.endswith(path) for template, _ in app.router)


def test_a_path_template_is_read_by_the_same_grammar() -> None:
    with pytest.raises(TemplateError, match=r"'\{hubId\}', which is not a path parameter"):
        ApiPath("mine", "base_url", "/v2/content/hubs/{hubId}")
    assert ApiPath("mine", "base_url", "/hubs/{hub_id}/x/{id2}").parameters == ("hub_id", "id2")
