"""``patgate serve``: a credential sent in any form is readable neither in the control API's
request log nor on the inspector's pages (the in-process surfaces:
``tests/ui/test_request_secrets.py``)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import httpx
import pytest

from patgate.control_client import ControlClient
from tests.ui.test_request_secrets import FORMS, Sent, client_token, forms_of

from .served import served

pytestmark = pytest.mark.slow


def _sent(world: dict[str, str], http: httpx.Client) -> list[Sent]:
    sent = []
    for name in FORMS:
        form = forms_of(world)[name]
        if "<jwt>" in form.hidden:
            jwt = client_token(world)
            form = Sent(form.method, form.url, {"X-Token": jwt}, b"", (jwt, jwt.rsplit(".", 1)[1]))
        http.request(form.method, form.url, headers=form.headers, content=form.body or None)
        sent.append(form)
    return sent


def _inspector(world: dict[str, str]) -> str:
    with httpx.Client(timeout=10) as browser:
        signed_in = browser.get(world["ui_url"])  # the address's key signs the browser in
        assert signed_in.status_code == 303, signed_in.text
        ui = world["ui_url"].split("?")[0].rstrip("/")
        listing = browser.get(ui + "/inspector").text
        numbers = sorted(set(re.findall(r"request\?number=(\d+)", listing)))
        assert numbers, listing
        details = [browser.get(f"{ui}/inspector/request?number={n}").text for n in numbers]
    return html.unescape(listing + "".join(details))


def test_a_served_fake_shows_no_credential_in_any_form(tmp_path: Path) -> None:
    with served(tmp_path / "w.json") as world, httpx.Client(timeout=10) as http:
        sent = _sent(world, http)
        with ControlClient(world["control_url"], world["control_token"]) as control:
            logged = control.requests(size=200)
        surfaces = {"control API": json.dumps(logged), "inspector": _inspector(world)}
    assert logged["total"] >= len(FORMS)
    readable = [
        (surface, form.url, hidden)
        for form in sent
        for surface, text in surfaces.items()
        for hidden in form.hidden
        if hidden in text
    ]
    assert readable == []
