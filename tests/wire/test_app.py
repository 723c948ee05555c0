from __future__ import annotations

from patgate.fake.deployment import Deployment
from patgate.fake.world import DefaultWorld
from patgate.wire import FakeUrls, WireApp, WireRequest
from tests.wire.conftest import HUBS_URL, Call, bearer


def test_urls_the_fake_does_not_serve_get_none(app: WireApp) -> None:
    assert app(WireRequest("GET", "https://example.com/v2/content/hubs")) is None
    assert app(WireRequest("POST", "http://auth.amplience.net/oauth/token")) is None


def test_an_unknown_content_path_needs_a_bearer_before_it_is_a_404(
    call: Call, world: DefaultWorld
) -> None:
    assert call("GET", "https://api.amplience.net/v2/content/hub").status == 401
    response = call("GET", "https://api.amplience.net/v2/content/hub", (bearer(world.admin_token),))
    assert response.status == 404
    message = response.json()["errors"][0]["message"]
    assert "GET https://api.amplience.net/v2/content/hubs/{hub_id}" in message
    assert "POST https://auth.amplience.net/oauth/token" in message


def test_an_unknown_path_outside_the_content_api_is_a_json_404(call: Call) -> None:
    response = call("GET", "https://auth.amplience.net/oauth/tokens")
    assert response.status == 404
    assert "errors" in response.json()


def test_hosts_compare_case_insensitively_and_ignore_the_default_port(
    call: Call, world: DefaultWorld
) -> None:
    url = "https://API.Amplience.NET:443/v2/content/hubs"
    assert call("GET", url, (bearer(world.admin_token),)).status == 200


def test_every_url_is_configurable(deployment: Deployment, world: DefaultWorld) -> None:
    urls = FakeUrls.build(
        auth_url="http://auth.test",
        base_url="http://api.test/prefix",
        graphql_url="http://g.test/q",
    )
    app = WireApp(deployment, urls)
    hubs = app(
        WireRequest("GET", "http://api.test/prefix/v2/content/hubs", (bearer(world.admin_token),))
    )
    assert hubs is not None
    assert hubs.status == 200
    assert hubs.json()["_links"]["self"]["href"].startswith("http://api.test/prefix/v2/")
    assert app(WireRequest("GET", HUBS_URL)) is None
    token = app(WireRequest("GET", "http://auth.test/oauth/token"))
    assert token is not None
    assert token.status == 405
    graph = app(WireRequest("GET", "http://g.test/q"))
    assert graph is not None
    assert graph.status == 405


def test_a_wire_request_repr_hides_headers_and_body() -> None:
    request = WireRequest("post", HUBS_URL, (("Authorization", "Bearer s3cret"),), b"secret=1")
    assert request.method == "POST"
    assert request.header("AUTHORIZATION") == "Bearer s3cret"
    assert "s3cret" not in repr(request)
    assert "secret=1" not in repr(request)
