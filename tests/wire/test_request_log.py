from __future__ import annotations

from patgate.wire import WireRequest, WireResponse
from patgate.wire.request_log import REDACTED, TRUNCATED, RequestLog

PAT = "amp_pat_0VDx5anoRUK7QmNWYZIOrQ.IqSKk8gASgZKhpIqSKk8gASgZKhpIqSKk8gASgZ"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"


def test_entries_keep_method_url_status_and_scheme_only() -> None:
    log = RequestLog()
    request = WireRequest(
        "GET", "https://api.test/v2/content/hubs?page=1", (("Authorization", f"Bearer {PAT}"),)
    )
    entry = log.record(request, WireResponse(200))
    assert (entry.method, entry.url, entry.status, entry.auth_scheme) == (
        "GET",
        "https://api.test/v2/content/hubs?page=1",
        200,
        "Bearer",
    )
    assert list(log) == [entry]
    assert log[0] == entry
    assert len(log) == 1


def test_secrets_never_reach_the_log_or_its_repr() -> None:
    log = RequestLog()
    urls = [
        "https://u:pw@auth.test/oauth/token?client_secret=hunter2&x=1",
        f"https://api.test/v2/content/hubs?access_token={PAT}",
        f"https://api.test/{JWT}/x?q={JWT}",
        f"https://api.test/x?anything={PAT}",
        "https://api.test/v2/content/hubs#client_secret=hunter2",
    ]
    for url in urls:
        log.record(
            WireRequest("POST", url, (("Authorization", f"Bearer {JWT}"),)), WireResponse(400)
        )
    text = repr(log) + repr(log.entries())
    for secret in ("hunter2", "pw@", PAT, JWT, "IqSKk8"):
        assert secret not in text
    assert REDACTED in text
    assert "x=1" in text


def test_a_custom_prefix_is_redacted_too() -> None:
    log = RequestLog(pat_prefix="acme_")
    entry = log.record(WireRequest("GET", "https://a.test/?t=acme_abc.def"), WireResponse(401))
    assert "acme_abc" not in entry.url


def test_clear_empties_the_log() -> None:
    log = RequestLog()
    log.record(WireRequest("GET", "https://a.test/"), WireResponse(404))
    log.clear()
    assert len(log) == 0
    assert repr(log) == "RequestLog([])"


def test_a_credential_sent_without_a_scheme_is_not_logged_as_one() -> None:
    secret = "Xq3vT9pL2mN8rK4wY7zB1cD6fG0hJ5sA-e_uiop"
    log = RequestLog()
    bare = log.record(
        WireRequest("GET", "https://a.test/", (("Authorization", secret),)), WireResponse(401)
    )
    spaced = log.record(
        WireRequest("GET", "https://a.test/", (("Authorization", f"{secret} x"),)),
        WireResponse(401),
    )
    lower = log.record(
        WireRequest("GET", "https://a.test/", (("Authorization", f"bearer {PAT}"),)),
        WireResponse(401),
    )
    assert (bare.auth_scheme, spaced.auth_scheme) == (REDACTED, REDACTED)
    assert lower.auth_scheme == "bearer"
    assert log.record(WireRequest("GET", "https://a.test/"), WireResponse(401)).auth_scheme is None
    assert secret[:6] not in repr(log.entries())


def test_the_log_keeps_the_newest_entries_up_to_its_capacity() -> None:
    log = RequestLog(capacity=3)
    for page in range(5):
        log.record(
            WireRequest("GET", f"https://api.test/v2/content/hubs?page={page}"), WireResponse(200)
        )
    assert [entry.url[-1] for entry in log] == ["2", "3", "4"]
    assert len(log) == 3


def test_a_credential_in_any_header_field_is_redacted_among_clean_ones() -> None:
    clean = [("accept", "*/*"), ("user-agent", "python-httpx/0.28.1"), ("x-trace", "abc")]
    for known in ("k3y-known-value", "line\nbreak-value"):
        log = RequestLog()
        log.know(known)
        for carrier in ([("x-forwarded", known)], [(f"x-{known}", "v")], [("referer", PAT)]):
            for at in range(len(clean) + 1):
                fields = (*clean[:at], *carrier, *clean[at:])
                entry = log.record(WireRequest("GET", "https://a.test/", fields), WireResponse(200))
                text = repr(entry.headers)
                assert known.split("\n")[0] not in text
                assert PAT not in text
                assert ("user-agent", "python-httpx/0.28.1") in entry.headers  # the rest kept


def test_a_form_body_and_the_scheme_are_judged_by_the_first_fields_past_those_kept() -> None:
    # More fields than an entry keeps: the scheme and the form's media type still count.
    many = tuple((f"x-{number}", "v") for number in range(120))
    body = b"grant_type=client_credentials&client_secret=hunter2-secret&x=1"
    for before in (True, False):
        wanted = (
            ("Authorization", "Basic abc"),
            ("Content-Type", "application/x-www-form-urlencoded"),
        )
        fields = (*wanted, *many) if before else (*many, *wanted)
        log = RequestLog()
        entry = log.record(WireRequest("POST", "https://a.test/t", fields, body), WireResponse(200))
        assert entry.auth_scheme == "Basic"
        assert b"hunter2" not in entry.body
        assert b"x=1" in entry.body
        assert len(entry.headers) == 100


def test_a_plain_body_and_url_are_kept_as_sent() -> None:
    log = RequestLog()
    body = b'{"query": "{ viewer { id } }"}'
    url = "https://api.test/graphql"
    entry = log.record(WireRequest("POST", url, (), body), WireResponse(200))
    assert (entry.url, entry.body) == (url, body)
    long_url = url + "/" + "a" * 3000
    long_body = b"b" * 5000
    entry = log.record(WireRequest("POST", long_url, (), long_body), WireResponse(200))
    assert entry.url.endswith(TRUNCATED)
    assert entry.body.endswith(TRUNCATED.encode())


def test_an_entry_is_the_dataclass_it_says_it_is() -> None:
    import dataclasses

    from patgate.wire.request_log import LoggedRequest

    names = [field.name for field in dataclasses.fields(LoggedRequest)]
    log = RequestLog()
    entry = log.record(WireRequest("GET", "https://a.test/x"), WireResponse(204), principal="u")
    assert list(vars(entry)) == names  # every field set, in order
    rebuilt = LoggedRequest(**{name: getattr(entry, name) for name in names})
    assert entry == rebuilt
    assert hash(entry) == hash(rebuilt)
    assert repr(entry) == repr(rebuilt)
    assert dataclasses.replace(entry, status=200).status == 200
