"""Helpers shared by the proxy handlers (Neutron and Cinder fronts)."""
from keel.api import paging
from keel.conf import CONF

MAX_PROXY_VERSION = "2.35"


def limited(items, req):
    """Nova's common.limited: ``offset`` and ``limit`` (0 = the maximum,
    capped by [api]/max_limit) over a full list."""
    params = paging.pagination_params(req)
    offset = params.get("offset", 0)
    limit = min(CONF.api.max_limit, params.get("limit") or CONF.api.max_limit)
    return items[offset:offset + limit]
