"""Manila v2 over keystoneauth1, with Nova's share API (nova.share.manila).

Nova reads Manila through a keystoneauth session on the ``[manila]`` group
at microversion 2.82 (access rules with locks). The endpoint is
``[manila]/endpoint_override`` or the catalog entry of
``[manila]/service_type``; the call goes out with the ``[manila]`` service
credentials when they are configured, else with the user's token.

``API`` answers what the server shares API and the compute's allow_share /
deny_share need: a share with its preferred export location, the access
rule of a host, granting and removing it. Manila's 404 (and 400 on a share)
become ShareNotFound, as Nova translates them.
"""
import dataclasses
import typing

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import plugin as ks_plugin

from keel.clients import ks_conf_session
from keel import exception

GROUP = "manila"
MIN_SHARE_FILE_SYSTEM_MICROVERSION = "2.82"
_CATALOG_TYPES = ("shared-file-system", "sharev2")


@dataclasses.dataclass(frozen=True)
class Share:
    id: str
    status: str
    share_proto: str
    export_location: typing.Optional[str]
    project_id: typing.Optional[str] = None
    name: typing.Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Access:
    id: str
    access_level: str
    state: str
    access_type: str
    access_to: str
    access_key: typing.Optional[str] = None

    @classmethod
    def from_body(cls, body):
        return cls(id=body["id"], access_level=body.get("access_level"),
                   state=body.get("state"),
                   access_type=body.get("access_type"),
                   access_to=body.get("access_to"),
                   access_key=body.get("access_key"))


class _ManilaAuth(ks_plugin.BaseAuthPlugin):
    """The service credentials (else the user's token) and Manila's URL."""

    def __init__(self, context, conf, service_auth=None):
        super().__init__()
        self._context = context
        self._conf = conf
        self._service_auth = service_auth

    def get_token(self, session, **kwargs):
        if self._service_auth is not None:
            return self._service_auth.get_token(session, **kwargs)
        return getattr(self._context, "auth_token", None)

    def get_endpoint(self, session, **kwargs):
        group = self._conf[GROUP]
        if group.endpoint_override:
            return group.endpoint_override
        interfaces = [i.strip() for i in
                      (group.valid_interfaces or "public").split(",")]
        types = (group.service_type,) + _CATALOG_TYPES
        for service in getattr(self._context, "service_catalog", None) or []:
            if service.get("type") not in types:
                continue
            for ep in service.get("endpoints") or []:
                if group.region_name and ep.get("region") != \
                        group.region_name:
                    continue
                if ep.get("interface") in interfaces or \
                        "interface" not in ep:
                    url = ep.get("url") or ep.get("publicURL")
                    if url:
                        return url
        if self._service_auth is not None:
            return self._service_auth.get_endpoint(
                session, service_type=group.service_type,
                interface=interfaces[0], region_name=group.region_name)
        raise exception.ManilaConnectionFailed(
            reason="no Manila endpoint in the catalog or endpoint_override")


_SESSION = ks_conf_session.GroupSession(GROUP)


def reset():
    _SESSION.reset()


class _Failed(Exception):
    """A Manila answer outside ``ok``: its status and message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class ManilaClient(object):
    def __init__(self, context, conf=None):
        if conf is None:
            from keel.conf import CONF as conf
        self.conf = conf
        self.context = context
        self.session, service_auth = _SESSION.get(conf)
        self.auth = _ManilaAuth(context, conf, service_auth)

    def call(self, method, path, body=None, ok=(200, 202)):
        headers = {"Accept": "application/json",
                   "X-OpenStack-Manila-API-Version":
                       MIN_SHARE_FILE_SYSTEM_MICROVERSION}
        rid = getattr(self.context, "global_id", None)
        if rid:
            headers["X-OpenStack-Request-ID"] = rid
        try:
            endpoint = self.auth.get_endpoint(self.session).rstrip("/")
            authenticated = self.auth.get_token(self.session) is not None
            kwargs = {"headers": headers, "auth": self.auth,
                      "authenticated": authenticated, "raise_exc": False}
            if body is not None:
                kwargs["json"] = body
            resp = self.session.request(endpoint + path, method, **kwargs)
        except (ks_exc.ConnectFailure, ks_exc.ConnectTimeout,
                ks_exc.EndpointNotFound, ks_exc.MissingAuthPlugin) as exc:
            raise exception.ManilaConnectionFailed(reason=str(exc)) from exc
        if resp.status_code in ok:
            return resp.json() if resp.content else None
        message = ks_conf_session.error_message(resp)
        if resp.status_code == 403:
            raise exception.Forbidden(message=message)
        if resp.status_code in (400, 404):
            raise _Failed(resp.status_code, message)
        raise exception.ManilaConnectionFailed(
            reason="%s %s: %s %s" % (method, path, resp.status_code,
                                     message))


def _preferred_path(export_locations):
    """The preferred export path, else the first one (Nova's choice)."""
    paths = []
    for location in export_locations:
        if location.get("preferred"):
            return location.get("path")
        paths.append(location.get("path"))
    return paths[0] if paths else None


class API(object):
    """Nova's nova.share.manila.API, over keel's Manila client."""

    def __init__(self, conf=None):
        self.conf = conf

    def _c(self, context):
        return ManilaClient(context, self.conf)

    def get(self, context, share_id):
        """The share with its export location; ShareNotFound if Manila
        answers 404 or 400."""
        client = self._c(context)
        try:
            share = client.call("GET", "/shares/%s" % share_id)["share"]
            locations = client.call(
                "GET", "/shares/%s/export_locations" % share["id"])
        except _Failed as exc:
            raise exception.ShareNotFound(share_id=share_id) from exc
        return Share(id=share["id"], status=share.get("status"),
                     share_proto=share.get("share_proto"),
                     export_location=_preferred_path(
                         locations.get("export_locations") or []),
                     project_id=share.get("project_id"),
                     name=share.get("name"))

    def get_access(self, context, share_id, access_type, access_to):
        """The share's access rule for ``access_type``/``access_to``, or
        None."""
        try:
            body = self._c(context).call(
                "GET", "/share-access-rules?share_id=%s" % share_id)
        except _Failed as exc:
            raise exception.ShareNotFound(share_id=share_id) from exc
        for rule in body.get("access_list") or []:
            if rule.get("access_type") == access_type and \
                    rule.get("access_to") == access_to:
                return Access.from_body(rule)
        return None

    def has_access(self, context, share_id, access_type, access_to):
        access = self.get_access(context, share_id, access_type, access_to)
        return access is not None and access.state == "active"

    def allow(self, context, share_id, access_type, access_to,
              access_level):
        """Grant the access rule, locked against the owner (Nova's lock);
        ShareAccessGrantError if Manila refuses it or answers another
        rule."""
        body = {"allow_access": {
            "access_type": access_type, "access_to": access_to,
            "access_level": access_level, "lock_visibility": True,
            "lock_deletion": True, "lock_reason": "Lock by nova"}}
        try:
            answer = self._c(context).call(
                "POST", "/shares/%s/action" % share_id, body=body)
        except _Failed as exc:
            if exc.status == 404:
                raise exception.ShareNotFound(share_id=share_id) from exc
            raise exception.ShareAccessGrantError(
                share_id=share_id, reason=str(exc)) from exc
        access = Access.from_body((answer or {}).get("access") or {"id": ""})
        if (access.access_type, access.access_to, access.access_level) != \
                (access_type, access_to, access_level):
            raise exception.ShareAccessGrantError(
                share_id=share_id, reason="unexpected answer from Manila")
        return access

    def deny(self, context, share_id, access_type, access_to):
        """Remove the host's access rule (and its lock);
        ShareAccessNotFound if there is none."""
        access = self.get_access(context, share_id, access_type, access_to)
        if access is None:
            raise exception.ShareAccessNotFound(share_id=share_id)
        body = {"deny_access": {"access_id": access.id, "unrestrict": True}}
        try:
            self._c(context).call("POST", "/shares/%s/action" % share_id,
                                  body=body, ok=(202,))
        except _Failed as exc:
            if exc.status == 404:
                raise exception.ShareNotFound(share_id=share_id) from exc
            raise exception.ShareAccessRemovalError(
                share_id=share_id, reason=str(exc)) from exc
