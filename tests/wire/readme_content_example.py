"""The example under "Your own content paths" in docs/how-to/content-paths.md, kept identical
to it by a test."""

from __future__ import annotations

import httpx

import patgate


def test_my_content_reader_meets_the_token_rules(
    patgate_fake: patgate.Fake, patgate_world: dict[str, str]
) -> None:
    # Your code reads content items, which the fake does not model: register the path.
    patgate_fake.content.add(
        "/content-items/{id}",
        lambda call: {"id": call.params["id"], "label": "Spring banner"},
    )
    url = patgate_world["base_url"] + "/v2/content/content-items/42"

    def get(token: str) -> httpx.Response:
        return httpx.get(url, headers={"Authorization": "Bearer " + token})

    assert get(patgate_world["admin_token"]).json() == {"id": "42", "label": "Spring banner"}
    # The same token rules as every other content path: 401, then 403, then your answer.
    assert httpx.get(url).status_code == 401
    assert get("not-a-token").status_code == 401
    assert get(patgate_world["removed_token"]).status_code == 403
    assert get(patgate_world["unpermitted_token"]).status_code == 403
