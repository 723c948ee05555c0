"""``fake.content``: users' own content paths behind the fake's authorization."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from patgate.fake.content import WEBHOOKS
from patgate.fake.world import DefaultWorld
from patgate.harness import Fake
from patgate.wire import WireApp, WireRequest, WireResponse
from patgate.wire.user_content import ContentCall
from tests.wire.conftest import URLS, bearer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = Path(__file__).with_name("readme_content_example.py")
HEADING = "## Your own content paths behind the fake's authorization"
CONTENT = URLS.base_url + "/v2/content"


def _get(app: WireApp, url: str, token: str | None, method: str = "GET") -> WireResponse:
    headers = (bearer(token),) if token else ()
    response = app(WireRequest(method, url, headers, b'{"a": 1}'))
    assert response is not None
    return response


def test_a_json_body_with_the_token_rules(app: WireApp, world: DefaultWorld) -> None:
    app.content.add("/content-items", {"_embedded": {"content-items": []}})
    url = CONTENT + "/content-items"
    assert _get(app, url, world.admin_token).json() == {"_embedded": {"content-items": []}}
    assert _get(app, url, None).status == 401
    assert _get(app, url, world.removed_token).status == 403
    assert _get(app, url, world.unpermitted_token).status == 403
    assert _get(app, url, world.admin_token, "POST").status == 405


def test_a_callable_sees_parameters_caller_and_body(app: WireApp, world: DefaultWorld) -> None:
    seen: list[ContentCall] = []

    def answer(call: ContentCall) -> dict[str, object]:
        seen.append(call)
        return {"got": call.json()}

    app.content.add("/content-items/{id}/copy", answer, method="post", status=201)
    response = _get(app, CONTENT + "/content-items/7/copy?x=1", world.member_token, "POST")
    assert (response.status, response.json()) == (201, {"got": {"a": 1}})
    [call] = seen
    assert (call.method, dict(call.params), call.query) == ("POST", {"id": "7"}, "x=1")
    assert call.user_id == world.member_id
    assert call.organization_id == world.organization_id


def test_a_served_path_or_a_repeated_method_is_refused(app: WireApp) -> None:
    with pytest.raises(ValueError, match="already routed"):
        app.content.add("/hubs", {})
    app.content.add("/mine", {})
    with pytest.raises(ValueError, match="already registered"):
        app.content.add("/mine", {})
    with pytest.raises(ValueError, match="method"):
        app.content.add("/other", {}, method="TRACE")
    with pytest.raises(ValueError, match="start with"):
        app.content.add("mine", {})


def test_records_added_to_a_hub_are_listed() -> None:
    fake = Fake()
    hub = fake.deployment.hubs[0]
    record = fake.content.add_record(WEBHOOKS, hub.id, label="orders")
    labels = [r.fields["label"] for r in fake.deployment.content.listing(WEBHOOKS, hub.id)]
    assert labels == ["Publish notifications", "orders"]
    assert record.fields["active"] is True


def _readme_block() -> str:
    lines = (ROOT / "docs/how-to/content-paths.md").read_text(encoding="utf-8").splitlines()
    assert HEADING in lines, f"docs/how-to/content-paths.md lost its {HEADING!r} section"
    section: list[str] = []
    for line in lines[lines.index(HEADING) + 1 :]:
        if line.startswith("## "):
            break
        section.append(line)
    found = re.search(r"^```python\n(.*?)^```$", "\n".join(section) + "\n", re.M | re.S)
    assert found, f"the {HEADING!r} section has no python block"
    return found.group(1)


def test_the_readme_shows_the_example_verbatim() -> None:
    source = EXAMPLE.read_text(encoding="utf-8")
    first = ast.parse(source).body[0]
    assert first.end_lineno is not None
    example = "\n".join(source.splitlines()[first.end_lineno :]).lstrip("\n") + "\n"
    assert _readme_block() == example


def test_the_readme_example_passes_as_a_users_test_module(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_content=EXAMPLE.read_text(encoding="utf-8"))
    pytester.runpytest("-W", "error", "-p", "no:cacheprovider").assert_outcomes(passed=1)
