"""Version discovery: ``/`` (all versions), ``/v2.1/`` and ``/v2/``.

The root document is outside microversion control and needs no token; so
does the bare ``/v2.1`` (and ``/v2``) document. ``/v2.1/`` and
``/v2.1/versions/{id}`` sit behind authentication inside the API, as in Nova.
"""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import versions as schema
from keel.api.views import versions as versions_view


def list_versions(req):
    """GET / — every major version (200); other root paths get 300."""
    if req.path_info in ("/", ""):
        return wsgi.json_response(versions_view.version_list(req))
    return wsgi.json_response(versions_view.choices(req), status=300)


@wsgi.expose()
@validation.query_schema(schema.show_query)
def show_version(req, id=None):
    """GET /v2.1/ or /v2.1/versions/{id}: one version's document."""
    if id is None or req.is_legacy_v2:
        id = "v2.0" if req.is_legacy_v2 else "v2.1"
    if id not in versions_view.VERSIONS:
        raise webob.exc.HTTPNotFound()
    return versions_view.version(req, id)
