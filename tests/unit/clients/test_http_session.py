"""EnvCachingSession: requests' environment rules, read once per origin."""
import pytest
import requests

from keel.clients import http_session
from keel.clients import placement

URLS = ("http://127.0.0.1:8778/allocation_candidates",
        "http://placement.example.com/resource_providers",
        "https://placement.example.com/traits")

CALLS = (({}, None, True, None),
         ({"https": "http://other-proxy:3128"}, True, "/etc/ca.pem", None),
         ({"no_proxy": "example.com"}, None, True, None),
         ({}, None, None, ("c.pem", "k.pem")))


@pytest.fixture
def proxied_env(monkeypatch):
    for name in ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY",
                 "HTTPS_PROXY", "NO_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", "http://proxy:3128")
    monkeypatch.setenv("https_proxy", "http://secure-proxy:3128")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", "/etc/bundle.pem")


def _copy(args):
    return [dict(arg) if isinstance(arg, dict) else arg for arg in args]


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("args", CALLS)
def test_same_settings_as_requests(proxied_env, url, args):
    plain = requests.Session()
    cached = http_session.EnvCachingSession()
    expected = plain.merge_environment_settings(url, *_copy(args))
    # Twice: the second answer comes from the cache.
    assert cached.merge_environment_settings(url, *_copy(args)) == expected
    assert cached.merge_environment_settings(url, *_copy(args)) == expected


def test_proxy_and_no_proxy_honoured(proxied_env):
    cached = http_session.EnvCachingSession()
    far = cached.merge_environment_settings(URLS[1], {}, None, True, None)
    near = cached.merge_environment_settings(URLS[0], {}, None, True, None)
    assert far["proxies"]["http"] == "http://proxy:3128"
    assert far["verify"] == "/etc/bundle.pem"
    assert "http" not in near["proxies"]


def test_environment_read_once_per_origin(proxied_env, monkeypatch):
    reads = []
    real = http_session.requests_utils.get_environ_proxies

    def counting(url, no_proxy=None):
        reads.append(url)
        return real(url, no_proxy=no_proxy)

    monkeypatch.setattr(http_session.requests_utils, "get_environ_proxies",
                        counting)
    cached = http_session.EnvCachingSession()
    for _ in range(5):
        for url in URLS:
            cached.merge_environment_settings(url, {}, None, True, None)
    assert len(reads) == 3


def test_untrusted_environment_ignored(proxied_env):
    cached = http_session.EnvCachingSession()
    cached.trust_env = False
    got = cached.merge_environment_settings(URLS[1], {}, None, True, None)
    assert got["proxies"] == {} and got["verify"] is True


def test_placement_adapters_use_it():
    adapter = placement.adapter_for_endpoint("http://127.0.0.1:8778")
    assert isinstance(adapter.session.session, http_session.EnvCachingSession)
