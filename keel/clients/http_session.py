"""A requests Session that reads the proxy environment once per origin.

requests consults the environment on every request when ``trust_env`` is
set: ``get_environ_proxies`` walks ``os.environ`` and the ``no_proxy`` list
for the URL, and ``REQUESTS_CA_BUNDLE``/``CURL_CA_BUNDLE`` are looked up
again (~0.1-0.2 ms per request, ~5 % of the scheduler's samples, which
talks to Placement twice per decision).  A service's environment does not
change while it runs, so the answer for one scheme and host is kept.  What
is honoured stays requests' own: proxies, no_proxy and the CA bundle
variables, read at the first request to each origin.

Requests under a base URL registered with :mod:`keel.clients.wsgi_transport`
(the all-in-one's embedded Placement) call that WSGI app in-process.
"""
import os
from urllib.parse import urlsplit

import requests
from requests import utils as requests_utils

from keel.clients import wsgi_transport


class EnvCachingSession(requests.Session):

    def __init__(self):
        super().__init__()
        self._environment = {}

    def _environment_for(self, url):
        parts = urlsplit(url)
        origin = (parts.scheme, parts.netloc)
        found = self._environment.get(origin)
        if found is None:
            found = (requests_utils.get_environ_proxies(url, no_proxy=None),
                     os.environ.get("REQUESTS_CA_BUNDLE")
                     or os.environ.get("CURL_CA_BUNDLE"))
            self._environment[origin] = found
        return found

    def merge_environment_settings(self, url, proxies, stream, verify, cert):
        if not self.trust_env or (proxies and "no_proxy" in proxies):
            # A per-call no_proxy changes the answer: requests' own path.
            return super().merge_environment_settings(
                url, proxies, stream, verify, cert)
        env_proxies, env_bundle = self._environment_for(url)
        if proxies is not None:
            for key, value in env_proxies.items():
                proxies.setdefault(key, value)
        if (verify is True or verify is None) and env_bundle:
            verify = env_bundle
        return {"proxies": requests.sessions.merge_setting(
                    proxies, self.proxies),
                "stream": requests.sessions.merge_setting(stream, self.stream),
                "verify": requests.sessions.merge_setting(verify, self.verify),
                "cert": requests.sessions.merge_setting(cert, self.cert)}

    def get_adapter(self, url):
        return wsgi_transport.adapter_for(url) or super().get_adapter(url)
