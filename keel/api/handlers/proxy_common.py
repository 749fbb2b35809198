"""Helpers shared by the proxy handlers (Neutron and Cinder fronts)."""
import webob.exc

from keel.api import paging
from keel.clients import neutron as neutron_client
from keel.conf import CONF
from keel import exception

MAX_PROXY_VERSION = "2.35"


def limited(items, req):
    """Nova's common.limited: ``offset`` and ``limit`` (0 = the maximum,
    capped by [api]/max_limit) over a full list."""
    params = paging.pagination_params(req)
    offset = params.get("offset", 0)
    limit = min(CONF.api.max_limit, params.get("limit") or CONF.api.max_limit)
    return items[offset:offset + limit]


def service_error(exc):
    """An HTTP error for a failure of the service behind a proxy: never a
    bare 500 with a traceback."""
    if isinstance(exc, neutron_client.NeutronClientException):
        if exc.status_code == 404:
            return webob.exc.HTTPNotFound(explanation=exc.format_message())
        if exc.status_code in (400, 409):
            return webob.exc.HTTPBadRequest(explanation=exc.format_message())
        if exc.status_code == 403:
            return webob.exc.HTTPForbidden(explanation=exc.format_message())
    if isinstance(exc, exception.NovaException) and exc.code == 503:
        return webob.exc.HTTPServiceUnavailable(
            explanation=exc.format_message())
    return webob.exc.HTTPServiceUnavailable(
        explanation="The network or volume service failed: %s" %
        exc.format_message())
