"""Who is calling: token validation and the request context.

Production (``[api]/auth_strategy = keystone``): keystonemiddleware's
auth_token validates the token and sets the X-User-Id/X-Project-Id/X-Roles
headers. Development (``keel-development``, ours; Nova 34 has no noauth2):
no validation at all; the same headers are filled in from the token text
(``user:project`` as noauth2 read it) or from ``[api]`` defaults, with the
roles of ``[api]/development_roles``. Either way ``ContextMiddleware`` then
builds the RequestContext from those headers, so both modes share one path.
"""
import json

from keystonemiddleware import auth_token
from oslo_log import log as logging
import webob.exc

from keel.api import wsgi
from keel.conf import api as api_conf
from keel import context as keel_context
from keel import policy

LOG = logging.getLogger(__name__)

# Identity headers a client must never be able to forge in development mode.
_IDENTITY_ENV = (
    "HTTP_X_IDENTITY_STATUS", "HTTP_X_USER_ID", "HTTP_X_USER",
    "HTTP_X_USER_NAME", "HTTP_X_PROJECT_ID", "HTTP_X_TENANT_ID",
    "HTTP_X_TENANT", "HTTP_X_PROJECT_NAME", "HTTP_X_TENANT_NAME",
    "HTTP_X_ROLES", "HTTP_X_ROLE", "HTTP_X_SERVICE_ROLES",
    "HTTP_X_SERVICE_CATALOG", "HTTP_X_USER_DOMAIN_ID",
    "HTTP_X_PROJECT_DOMAIN_ID", "HTTP_X_DOMAIN_ID",
    "HTTP_OPENSTACK_SYSTEM_SCOPE", "HTTP_X_IS_ADMIN_PROJECT",
)

# Catalog entries kept on the context (what the API later talks to).
_CATALOG_TYPES = frozenset([
    "volume", "volumev2", "volumev3", "key-manager", "placement", "network",
    "accelerator", "image", "sharev2", "share", "compute"])


def keystone_filter(app, conf):
    """keystonemiddleware auth_token around ``app``, reading ``conf``."""
    return auth_token.AuthProtocol(app, {"oslo_config_config": conf})


class DevelopmentAuth:
    """keel-development: trust the caller, give it the configured roles."""

    def __init__(self, application, conf):
        self.application = application
        self.roles = ",".join(conf.api.development_roles)
        self.default_user = conf.api.development_user_id
        self.default_project = conf.api.development_project_id

    def __call__(self, environ, start_response):
        for key in _IDENTITY_ENV:
            environ.pop(key, None)
        token = environ.get("HTTP_X_AUTH_TOKEN", "").strip()
        if token:
            user_id, _sep, project_id = token.partition(":")
            project_id = project_id or user_id
        else:
            user_id, project_id = self.default_user, self.default_project
        environ.update({
            "HTTP_X_IDENTITY_STATUS": "Confirmed",
            "HTTP_X_USER_ID": user_id,
            "HTTP_X_USER_NAME": user_id,
            "HTTP_X_PROJECT_ID": project_id,
            "HTTP_X_TENANT_ID": project_id,
            "HTTP_X_PROJECT_NAME": project_id,
            "HTTP_X_ROLES": self.roles,
        })
        return self.application(environ, start_response)


def announce_development_mode(conf):
    banner = "!" * 72
    LOG.warning(banner)
    LOG.warning("[api]/auth_strategy = keel-development: tokens are NOT "
                "validated. Every request is accepted with roles %s. Never "
                "expose this API outside a development machine.",
                ",".join(conf.api.development_roles))
    LOG.warning(banner)


class ContextMiddleware:
    """Build keel.context.RequestContext from the identity headers."""

    def __init__(self, application, conf):
        self.application = application
        self.use_forwarded_for = conf.api.use_forwarded_for

    def __call__(self, environ, start_response):
        if environ.get("HTTP_X_IDENTITY_STATUS", "Confirmed") != "Confirmed":
            return webob.exc.HTTPUnauthorized()(environ, start_response)
        if environ.get("HTTP_X_USER_ID", environ.get("HTTP_X_USER")) is None:
            LOG.debug("No X-User-Id in an authenticated request")
            return webob.exc.HTTPUnauthorized()(environ, start_response)
        remote = environ.get("REMOTE_ADDR")
        if self.use_forwarded_for:
            remote = environ.get("HTTP_X_FORWARDED_FOR", remote)
        try:
            catalog = _catalog(environ.get("HTTP_X_SERVICE_CATALOG"))
        except webob.exc.HTTPException as exc:
            return exc(environ, start_response)
        ctx = keel_context.RequestContext.from_environ(
            environ, user_auth_plugin=environ.get("keystone.token_auth"),
            remote_address=remote, service_catalog=catalog)
        if not ctx.project_id:
            ctx.project_id = environ.get("HTTP_X_TENANT_ID")
        ctx.is_admin = policy.check_is_admin(ctx)
        environ[wsgi.ENV_CONTEXT] = ctx
        return self.application(environ, start_response)


def _catalog(header):
    if not header:
        return []
    try:
        catalog = json.loads(header)
    except ValueError:
        raise webob.exc.HTTPInternalServerError(
            explanation="Invalid service catalog json.")
    return [s for s in catalog if s.get("type") in _CATALOG_TYPES]


def auth_pipeline(app, conf):
    """The authentication + context layers for the configured strategy."""
    app = ContextMiddleware(app, conf)
    if conf.api.auth_strategy == api_conf.AUTH_DEVELOPMENT:
        announce_development_mode(conf)
        return DevelopmentAuth(app, conf)
    return keystone_filter(app, conf)
