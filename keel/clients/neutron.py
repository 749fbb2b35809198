"""REST calls to Neutron's v2.0 API over keystoneauth1.

The ``[neutron]`` options build the adapter exactly as Nova's
``get_client``: a user's request goes out with the user's token (so Neutron
applies the project's own view and policy), while admin work (port binding,
listing another project's ports, periodic refreshes) uses the service
credentials of ``[neutron]``. Without any auth plugin (``auth_type`` unset,
only ``endpoint_override``/``url``) every call is anonymous, which is what a
noauth Neutron or a test simulator expects.

Failures raise :class:`NeutronClientException` carrying Neutron's error
``type`` (``NetworkNotFound``, ``IpAddressAlreadyAllocated``…) so the network
API can translate them into Nova's exceptions.
"""
import logging
import threading
import time

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import plugin as ks_plugin

from keel import exception

LOG = logging.getLogger(__name__)

GROUP = "neutron"
API_PREFIX = "/v2.0"


class NeutronClientException(exception.NovaException):
    """Neutron answered with an error (or could not be reached)."""
    msg_fmt = "Neutron error: %(message)s"

    def __init__(self, message=None, status_code=500, type=None, detail=""):
        super().__init__(message=message or "Neutron error")
        self.status_code = status_code
        self.code = status_code
        self.type = type
        self.detail = detail


class NeutronConnectionFailed(NeutronClientException):
    safe = True  # our own words: shown to the API caller as they are

    def __init__(self, message):
        super().__init__(message="Connection to neutron failed: %s" % message,
                         status_code=503, type="ConnectionFailed")


def _is_set(value):
    return value not in (None, "", "none", "noauth")


def is_configured(conf):
    """Whether ``[neutron]`` names a way to reach Neutron at all."""
    group = conf[GROUP]
    return bool(_is_set(group.auth_type) or group.endpoint_override or
                group.url)


class _UserTokenAuth(ks_plugin.BaseAuthPlugin):
    """The caller's token, with the endpoint from the catalog or config."""

    def __init__(self, context, endpoint=None):
        super().__init__()
        self._context = context
        self._endpoint = endpoint

    def get_token(self, session, **kwargs):
        return self._context.auth_token

    def get_endpoint(self, session, interface=None, service_type=None,
                     region_name=None, **kwargs):
        if self._endpoint:
            return self._endpoint
        for service in self._context.service_catalog or []:
            if service.get("type") != (service_type or "network"):
                continue
            for ep in service.get("endpoints") or []:
                if region_name and ep.get("region") != region_name:
                    continue
                url = (ep.get("url") or ep.get("publicURL") or
                       ep.get("internalURL"))
                if url:
                    return url
        return None


class _Adapters(object):
    """Process-wide admin adapter and session (config read once)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._admin = None
        self._session = None

    def reset(self):
        with self._lock:
            self._admin = self._session = None

    def _endpoint(self, conf):
        return conf[GROUP].endpoint_override or conf[GROUP].url

    def admin(self, conf):
        with self._lock:
            if self._admin is None:
                auth = ks_loading.load_auth_from_conf_options(conf, GROUP)
                sess = ks_loading.load_session_from_conf_options(
                    conf, GROUP, auth=auth)
                self._session = sess
                self._admin = ks_loading.load_adapter_from_conf_options(
                    conf, GROUP, session=sess, auth=auth, raise_exc=False,
                    endpoint_override=self._endpoint(conf),
                    connect_retries=conf[GROUP].http_retries)
            return self._admin

    def user(self, conf, context):
        admin = self.admin(conf)
        auth = _UserTokenAuth(context, self._endpoint(conf))
        return ks_loading.load_adapter_from_conf_options(
            conf, GROUP, session=self._session, auth=auth, raise_exc=False,
            endpoint_override=self._endpoint(conf),
            connect_retries=admin.connect_retries)


_ADAPTERS = _Adapters()


# Neutron's extension aliases per endpoint: (monotonic time, set).
_EXTENSIONS = {}


def reset():
    """Forget cached adapters and extension lists (after the
    configuration changed)."""
    _ADAPTERS.reset()
    _EXTENSIONS.clear()


def get_client(context, admin=False, conf=None):
    """A :class:`NeutronClient` acting as the user or, with ``admin``
    (or a context without a token, or anonymous config), as the service."""
    if conf is None:
        from keel.conf import CONF as conf
    token = getattr(context, "auth_token", None) if context else None
    if admin or not token or not _is_set(conf[GROUP].auth_type):
        adapter = _ADAPTERS.admin(conf)
    else:
        adapter = _ADAPTERS.user(conf, context)
    return NeutronClient(adapter, context=context)


def _request_id(context):
    if context is None:
        return None
    return getattr(context, "global_id", None) or getattr(
        context, "request_id", None)


def _error(resp):
    """A NeutronClientException from a failed response's NeutronError body."""
    message, kind, detail = resp.text, None, ""
    try:
        body = resp.json()
        err = body.get("NeutronError", body)
        if isinstance(err, dict):
            message = err.get("message") or message
            kind = err.get("type")
            detail = err.get("detail") or ""
        elif isinstance(err, str):
            message = err
    except ValueError:
        pass
    return NeutronClientException(message=message,
                                  status_code=resp.status_code,
                                  type=kind, detail=detail)


class NeutronClient(object):
    """One method per Neutron call keel makes; bodies as Neutron's."""

    def __init__(self, adapter, context=None):
        self.adapter = adapter
        self.context = context

    def _call(self, method, path, body=None, params=None, ok=(200,)):
        headers = {"Accept": "application/json"}
        rid = _request_id(self.context)
        if rid:
            headers["X-OpenStack-Request-ID"] = rid
        kwargs = {"headers": headers}
        if body is not None:
            kwargs["json"] = body
        if params:
            kwargs["params"] = {k: v for k, v in params.items()
                                if v is not None}
        try:
            resp = self.adapter.request(API_PREFIX + path, method, **kwargs)
        except (ks_exc.ConnectFailure, ks_exc.ConnectTimeout,
                ks_exc.EndpointNotFound, ks_exc.DiscoveryFailure,
                ks_exc.MissingAuthPlugin) as exc:
            LOG.warning("Neutron %s %s unreachable: %s", method, path, exc)
            raise NeutronConnectionFailed(str(exc)) from exc
        if resp.status_code not in ok:
            raise _error(resp)
        if resp.status_code == 204 or not resp.content:
            return None
        return resp.json()

    # Generic collection helpers: Neutron's list filters are query
    # parameters; a list value is sent as the parameter repeated (OR).
    def _list(self, collection, filters):
        return self._call("GET", "/%s" % collection,
                          params=filters)[collection.replace("-", "_")]

    def _show(self, collection, key, rid, fields=None):
        params = {"fields": fields} if fields else None
        return self._call("GET", "/%s/%s" % (collection, rid),
                          params=params)[key]

    def _create(self, collection, key, body):
        return self._call("POST", "/%s" % collection, body={key: body},
                          ok=(201,))[key]

    def _update(self, collection, key, rid, body):
        return self._call("PUT", "/%s/%s" % (collection, rid),
                          body={key: body})[key]

    def _delete(self, collection, rid):
        self._call("DELETE", "/%s/%s" % (collection, rid), ok=(204,))

    # -- networks, subnets -------------------------------------------------
    def list_networks(self, **filters):
        return self._list("networks", filters)

    def show_network(self, network_id, fields=None):
        return self._show("networks", "network", network_id, fields)

    def list_subnets(self, **filters):
        return self._list("subnets", filters)

    # -- ports -------------------------------------------------------------
    def list_ports(self, **filters):
        return self._list("ports", filters)

    def show_port(self, port_id, fields=None):
        return self._show("ports", "port", port_id, fields)

    def create_port(self, body):
        return self._create("ports", "port", body)

    def update_port(self, port_id, body):
        return self._update("ports", "port", port_id, body)

    def delete_port(self, port_id):
        self._delete("ports", port_id)

    # -- security groups ---------------------------------------------------
    def list_security_groups(self, **filters):
        return self._list("security-groups", filters)

    def show_security_group(self, sg_id, fields=None):
        return self._show("security-groups", "security_group", sg_id, fields)

    def create_security_group(self, body):
        return self._create("security-groups", "security_group", body)

    def update_security_group(self, sg_id, body):
        return self._update("security-groups", "security_group", sg_id, body)

    def delete_security_group(self, sg_id):
        self._delete("security-groups", sg_id)

    def list_security_group_rules(self, **filters):
        return self._list("security-group-rules", filters)

    def show_security_group_rule(self, rule_id):
        return self._show("security-group-rules", "security_group_rule",
                          rule_id)

    def create_security_group_rule(self, body):
        return self._create("security-group-rules", "security_group_rule",
                            body)

    def delete_security_group_rule(self, rule_id):
        self._delete("security-group-rules", rule_id)

    # -- floating IPs ------------------------------------------------------
    def list_floatingips(self, **filters):
        return self._list("floatingips", filters)

    def show_floatingip(self, fip_id):
        return self._show("floatingips", "floatingip", fip_id)

    def create_floatingip(self, body):
        return self._create("floatingips", "floatingip", body)

    def update_floatingip(self, fip_id, body):
        return self._update("floatingips", "floatingip", fip_id, body)

    def delete_floatingip(self, fip_id):
        self._delete("floatingips", fip_id)

    # -- extensions, quotas, auto-allocation --------------------------------
    def list_extensions(self):
        return self._call("GET", "/extensions")["extensions"]

    def has_extension(self, alias, max_age=600):
        """Whether Neutron has ``alias``; the list is read again only when
        older than ``max_age`` seconds ([neutron]/extension_sync_interval)."""
        key = getattr(self.adapter, "endpoint_override", None)
        cached = _EXTENSIONS.get(key)
        now = time.monotonic()
        if cached is None or now - cached[0] > max_age:
            cached = (now, {e["alias"] for e in self.list_extensions()})
            _EXTENSIONS[key] = cached
        return alias in cached[1]

    def show_quota(self, project_id):
        return self._call("GET", "/quotas/%s" % project_id)["quota"]

    def get_auto_allocated_topology(self, project_id, dry_run=False):
        params = {"fields": "dry-run"} if dry_run else None
        return self._call("GET", "/auto-allocated-topology/%s" % project_id,
                          params=params)["auto_allocated_topology"]
