"""The compute API's WSGI stack, outermost first.

  CORS                  answers pre-flight requests before anything else
  HTTPProxyToWSGI       scheme/host/prefix from a TLS proxy, before any link
  ComputeRequestId      x-openstack-request-id and x-compute-request-id on
                        every response; accepts the caller's global id
  FaultWrapper          any error escaping below becomes Nova's JSON fault
  RequestLog            one INFO line per request, with its microversion
  URL map:
    /                   version list (300 "choices" for unknown paths);
                        /openapi.json: the generated OpenAPI 3.1 document
    /v2.1, /v2          that version's document, no token needed
    /v2.1/…             RequestBodySizeLimiter → auth (keystone or
                        keel-development) → context → Router
    /v2/…               same, plus LegacyV2 (microversion headers ignored,
                        unknown body properties dropped)

Authentication sits inside the fault wrapper and outside the router, so an
unauthenticated request gets a 401 before its microversion is looked at, as
in Nova.
"""
from oslo_log import log as logging
from oslo_middleware import sizelimit
import webob.dec

from keel.api import auth
from keel.api import fault
from keel.api import middleware
from keel.api import microversion
from keel.api import openapi
from keel.api import routes
from keel.api import wsgi
from keel.api.handlers import versions
from keel.conf import CONF

LOG = logging.getLogger(__name__)


class LegacyV2:
    """/v2: microversions do not exist there; requests are always 2.1."""

    _HEADERS = (microversion.HEADER, microversion.LEGACY_HEADER)

    def __init__(self, application):
        self.application = application

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        req.environ[wsgi.ENV_LEGACY_V2] = True
        for name in self._HEADERS:
            req.headers.pop(name, None)
        resp = req.get_response(self.application)
        for name in self._HEADERS:
            resp.headers.pop(name, None)
        vary = [v.strip() for v in resp.headers.getall("Vary")
                for v in v.split(",")]
        while "Vary" in resp.headers:
            del resp.headers["Vary"]
        kept = [v for v in vary if v and v not in self._HEADERS]
        if kept:
            resp.headers["Vary"] = ",".join(kept)
        return resp


class URLMap:
    """Dispatch on the version prefix, moving it into SCRIPT_NAME."""

    def __init__(self, root, v21_doc, v21_api, v2_doc, v2_api):
        # Longest prefix first; (prefix, app for "" or "/", app for more).
        self.mounts = [("/v2.1", v21_doc, v21_api), ("/v2", v2_doc, v2_api)]
        self.root = root

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "") or "/"
        for prefix, doc_app, api_app in self.mounts:
            if path == prefix or path.startswith(prefix + "/"):
                rest = path[len(prefix):]
                script = environ.get("SCRIPT_NAME", "")
                environ["SCRIPT_NAME"] = script + prefix
                environ["PATH_INFO"] = rest
                app = doc_app if rest in ("", "/") else api_app
                return app(environ, start_response)
        environ["PATH_INFO"] = path
        return self.root(environ, start_response)


def _root_app(environ, start_response):
    req = wsgi.Request(environ)
    if req.path_info == "/openapi.json" and req.method == "GET":
        return wsgi.json_response(openapi.document())(environ, start_response)
    return versions.list_versions(req)(environ, start_response)


def build_api(conf, router):
    """The authenticated part, around ``router``."""
    return sizelimit.RequestBodySizeLimiter(
        auth.auth_pipeline(router, conf), conf)


def deploy(conf=CONF, table=None):
    """The whole WSGI application for ``conf``."""
    # `keel api` and the WSGI entry load no object module otherwise
    # (objects.Flavor missing in the API process: POST /flavors was a 500).
    from keel import objects
    objects.register_all()
    from keel.api import preload
    preload.warm(conf)
    router = routes.Router(table)
    doc_router = routes.Router({"": {"GET": versions.show_version},
                                "/": {"GET": versions.show_version}})
    api = build_api(conf, router)
    app = URLMap(root=_root_app,
                 v21_doc=doc_router, v21_api=api,
                 v2_doc=LegacyV2(doc_router), v2_api=LegacyV2(api))
    app = middleware.RequestLog(app)
    app = fault.FaultWrapper(app)
    app = middleware.ComputeRequestId(app, conf)
    app = middleware.HTTPProxyToWSGI(app, conf)
    app = middleware.CORS(app, conf)
    return app
