from __future__ import annotations

import pytest

from patgate.errors import UsageError
from patgate.wire import FakeUrls, UnmatchedRequest
from patgate.wire.urls import canonical_url


def test_the_defaults_are_the_real_hosts() -> None:
    urls = FakeUrls()
    assert urls.token_url == "https://auth.amplience.net/oauth/token"
    assert urls.hubs_url == "https://api.amplience.net/v2/content/hubs"
    assert urls.graphql_url == "https://api.amplience.net/graphql"


def test_graphql_follows_base_url_unless_given() -> None:
    assert FakeUrls.build(base_url="http://x.test/api/").graphql_url == "http://x.test/api/graphql"
    given = FakeUrls.build(base_url="http://x.test", graphql_url="http://g.test/gql")
    assert given.graphql_url == "http://g.test/gql"


def test_urls_are_normalised() -> None:
    urls = FakeUrls.build(auth_url="HTTPS://Auth.Example.COM:443/", base_url="http://h.test:80")
    assert urls.auth_url == "https://auth.example.com"
    assert urls.base_url == "http://h.test"


@pytest.mark.parametrize(
    "bad",
    ["auth.example.com", "ftp://h.test", "https://", "https://h.test?x=1", "http://h.test:99999"],
)
def test_a_url_that_is_not_absolute_http_is_a_usage_error(bad: str) -> None:
    with pytest.raises(UsageError, match="base_url"):
        FakeUrls.build(base_url=bad)


def test_serves_covers_the_bases_and_nothing_else() -> None:
    urls = FakeUrls.build(base_url="http://h.test/api")
    assert urls.serves("http://h.test/api/v2/content/hubs?page=1")
    assert urls.serves("http://H.TEST:80/api/anything")
    assert urls.serves("https://auth.amplience.net/oauth/token")
    assert not urls.serves("http://h.test/apiary")
    assert not urls.serves("http://h.test/")
    assert not urls.serves("https://api.amplience.net/v2/content/hubs")


def test_canonical_url_drops_query_userinfo_and_default_port() -> None:
    assert canonical_url("https://u:p@API.test:443/a?b=c#d") == "https://api.test/a"
    assert canonical_url("http://[::1]:8080") == "http://[::1]:8080/"


def test_the_unmatched_error_lists_what_the_fake_serves_and_hides_the_query() -> None:
    error = FakeUrls().unmatched("GET", "https://other.test/x?access_token=s3cret")
    assert isinstance(error, UnmatchedRequest)
    assert isinstance(error, AssertionError)
    text = str(error)
    assert "GET https://other.test/x" in text
    assert "s3cret" not in text
    assert "POST https://auth.amplience.net/oauth/token" in text
    assert "GET https://api.amplience.net/v2/content/hubs" in text
    assert "POST https://api.amplience.net/graphql" in text


@pytest.mark.parametrize(
    "bad",
    [
        "https://h.test/?access_token=amp_pat_AAAA.BBBB",
        "amp_pat_AAAA.BBBB",
        "https://user:amp_pat_AAAA.BBBB@h.test:99999",
    ],
)
def test_the_usage_error_never_repeats_the_url(bad: str) -> None:
    with pytest.raises(UsageError) as raised:
        FakeUrls.build(base_url=bad)
    assert "amp_pat_" not in str(raised.value)
