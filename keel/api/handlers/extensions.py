"""GET /extensions and /extensions/{alias}: Nova's fixed list of the v2.1
API's former extensions (the legacy v2 compatible endpoint lists one more).
An unknown alias is a plain 404."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import extension_list
from keel.api.schemas import extension_info as schema
from keel.policies import extensions as names
from keel import policy

NAMESPACE = "http://docs.openstack.org/compute/ext/fake_xml"
UPDATED = "2014-12-03T00:00:00Z"


def _entry(alias, name, description):
    return {"alias": alias, "description": description, "links": [],
            "name": name, "namespace": NAMESPACE, "updated": UPDATED}


_V21 = tuple(_entry(*e) for e in extension_list.EXTENSIONS)
_LEGACY_V2 = tuple(sorted(
    _V21 + tuple(_entry(*e) for e in extension_list.LEGACY_V2_ONLY),
    key=lambda e: e["alias"]))


def _extensions(req):
    policy.authorize(req.context, names.EXTENSIONS, target={})
    return _LEGACY_V2 if req.is_legacy_v2 else _V21


@wsgi.expose()
@validation.query_schema(schema.index_query, "2.1", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
def index(req):
    return {"extensions": [dict(e) for e in _extensions(req)]}


@wsgi.expose()
@validation.query_schema(schema.show_query, "2.1", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, id):
    for ext in _extensions(req):
        if ext["alias"] == id:
            return {"extension": dict(ext)}
    raise webob.exc.HTTPNotFound()


def route_entries():
    return {"/extensions": {"GET": index},
            "/extensions/{id}": {"GET": show}}
