"""Cinder v3 over keystoneauth1, with Nova's volume API (nova.volume.cinder).

Calls go out as the user (their token; Cinder's URL carries the project),
found from ``[cinder]/endpoint_template`` or the service catalog entry named
by ``[cinder]/catalog_info``; a context without a token uses the
``[cinder]`` service credentials. Each call names its microversion
(``OpenStack-API-Version: volume 3.x``): the attachment flow is 3.44's
(create → update with the host connector → complete → delete).

Volumes come back in Nova's translated shape (``attach_status``,
``attachments`` keyed by instance, ``display_name``…), which is what the
compute manager and the os-volumes proxy read.
"""
import logging

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import plugin as ks_plugin

from keel.clients import ks_conf_session
from keel import exception

LOG = logging.getLogger(__name__)

GROUP = "cinder"
MIN_VERSION = "3.0"
ATTACHMENT_VERSION = "3.44"
MULTIATTACH_VERSION = "3.48"


def is_configured(conf):
    group = conf[GROUP]
    return bool(group.endpoint_template or
                group.auth_type not in (None, "", "none", "noauth"))


class _CinderAuth(ks_plugin.BaseAuthPlugin):
    """The user's token (if any) and Cinder's project-scoped endpoint."""

    def __init__(self, context, conf, fallback=None):
        super().__init__()
        self._context = context
        self._conf = conf
        self._fallback = fallback

    def get_token(self, session, **kwargs):
        token = getattr(self._context, "auth_token", None)
        if token:
            return token
        if self._fallback is not None:
            return self._fallback.get_token(session, **kwargs)
        return None

    def get_endpoint(self, session, **kwargs):
        group = self._conf[GROUP]
        values = {"project_id": self._context.project_id,
                  "tenant": self._context.project_id,
                  "project_name": getattr(self._context, "project_name",
                                          None)}
        if group.endpoint_template:
            return group.endpoint_template % values
        service_type, service_name, interface = group.catalog_info.split(":")
        for service in self._context.service_catalog or []:
            if service.get("type") != service_type:
                continue
            if service_name and service.get("name") != service_name:
                continue
            for ep in service.get("endpoints") or []:
                if group.os_region_name and \
                        ep.get("region") != group.os_region_name:
                    continue
                url = ep.get(interface) or ep.get("url")
                if url:
                    return url
        if self._fallback is not None:
            return self._fallback.get_endpoint(
                session, service_type=service_type,
                interface=interface.replace("URL", ""),
                region_name=group.os_region_name)
        raise exception.CinderConnectionFailed(
            reason="no Cinder endpoint in the catalog or endpoint_template")


_SESSION = ks_conf_session.GroupSession(GROUP)


def reset():
    _SESSION.reset()


class CinderClient(object):
    def __init__(self, context, conf=None):
        if conf is None:
            from keel.conf import CONF as conf
        self.conf = conf
        self.context = context
        sess, fallback = _SESSION.get(conf)
        self.session = sess
        self.auth = _CinderAuth(context, conf, fallback)

    def call(self, method, path, version=MIN_VERSION, body=None,
             ok=(200, 202), not_found=None):
        headers = {"Accept": "application/json",
                   "OpenStack-API-Version": "volume %s" % version}
        rid = getattr(self.context, "global_id", None)
        if rid:
            headers["X-OpenStack-Request-ID"] = rid
        endpoint = self.auth.get_endpoint(self.session).rstrip("/")
        # Anonymous (noauth Cinder, tests) when there is no token at all.
        authenticated = self.auth.get_token(self.session) is not None
        kwargs = {"headers": headers, "auth": self.auth,
                  "authenticated": authenticated, "raise_exc": False,
                  "connect_retries": self.conf[GROUP].http_retries}
        if body is not None:
            kwargs["json"] = body
        try:
            resp = self.session.request(endpoint + path, method, **kwargs)
        except (ks_exc.ConnectFailure, ks_exc.ConnectTimeout,
                ks_exc.EndpointNotFound) as exc:
            raise exception.CinderConnectionFailed(reason=str(exc)) from exc
        if resp.status_code in ok:
            return resp.json() if resp.content else None
        message = ks_conf_session.error_message(resp)
        if resp.status_code == 404 and not_found is not None:
            raise not_found
        if resp.status_code == 413 or (resp.status_code == 403 and
                                       "quota" in message.lower()):
            raise exception.VolumeLimitExceeded(message=message)
        if resp.status_code == 400:
            raise exception.InvalidInput(reason=message)
        if resp.status_code == 403:
            raise exception.Forbidden(message=message)
        if resp.status_code == 409:
            raise exception.InvalidVolume(reason=message)
        raise exception.CinderConnectionFailed(
            reason="%s %s: %s %s" % (method, path, resp.status_code,
                                     message))


def _translate_volume(vol):
    """Nova's view of a Cinder volume."""
    attachments = {}
    for att in vol.get("attachments") or []:
        attachments[att.get("server_id")] = {
            "attachment_id": att.get("attachment_id"),
            "mountpoint": att.get("device")}
    return {
        "id": vol["id"], "status": vol.get("status"),
        "size": vol.get("size"),
        "availability_zone": vol.get("availability_zone"),
        "created_at": vol.get("created_at"),
        "attach_status": "attached" if attachments else "detached",
        "attachments": attachments,
        "multiattach": vol.get("multiattach", False),
        "display_name": vol.get("name"),
        "display_description": vol.get("description"),
        "volume_type_id": vol.get("volume_type"),
        "snapshot_id": vol.get("snapshot_id"),
        "bootable": str(vol.get("bootable", "false")).lower() == "true",
        "volume_metadata": dict(vol.get("metadata") or {}),
        "encrypted": vol.get("encrypted", False),
        "shared_targets": vol.get("shared_targets", False),
        "service_uuid": vol.get("service_uuid"),
    }


def _translate_snapshot(snap):
    return {"id": snap["id"], "status": snap.get("status"),
            "progress": snap.get("progress"), "size": snap.get("size"),
            "created_at": snap.get("created_at"),
            "display_name": snap.get("name"),
            "display_description": snap.get("description"),
            "volume_id": snap.get("volume_id"),
            "project_id": snap.get("os-extended-snapshot-attributes:"
                                   "project_id"),
            "volume_size": snap.get("size")}


class API(object):
    """Nova's nova.volume.cinder.API, the calls keel makes."""

    def __init__(self, conf=None):
        self.conf = conf

    def _c(self, context):
        return CinderClient(context, self.conf)

    # -- volumes -----------------------------------------------------------
    def get(self, context, volume_id, microversion=None):
        body = self._c(context).call(
            "GET", "/volumes/%s" % volume_id, microversion or MIN_VERSION,
            not_found=exception.VolumeNotFound(volume_id=volume_id))
        return _translate_volume(body["volume"])

    def get_all(self, context, search_opts=None):
        body = self._c(context).call("GET", "/volumes/detail")
        return [_translate_volume(v) for v in body["volumes"]]

    def create(self, context, size, name, description, snapshot=None,
               image_id=None, volume_type=None, metadata=None,
               availability_zone=None):
        vol = {"size": size, "name": name, "description": description,
               "snapshot_id": snapshot["id"] if snapshot else None,
               "imageRef": image_id, "volume_type": volume_type,
               "metadata": metadata or {},
               "availability_zone": availability_zone}
        body = self._c(context).call("POST", "/volumes",
                                     body={"volume": vol})
        return _translate_volume(body["volume"])

    def delete(self, context, volume_id):
        self._c(context).call(
            "DELETE", "/volumes/%s" % volume_id, ok=(202, 204),
            not_found=exception.VolumeNotFound(volume_id=volume_id))

    def check_availability_zone(self, context, volume, instance=None):
        """With [cinder]/cross_az_attach off, the volume must be in the
        instance's zone (InvalidVolume otherwise, Nova's message)."""
        conf = self.conf
        if conf is None:
            from keel.conf import CONF as conf
        if instance is None or conf.cinder.cross_az_attach:
            return
        instance_az = getattr(instance, "availability_zone", None)
        if instance_az != volume["availability_zone"]:
            raise exception.InvalidVolume(
                reason="Instance %s and volume %s are not in the same "
                       "availability_zone. Instance is in %s. Volume is in "
                       "%s" % (instance.uuid, volume["id"], instance_az,
                               volume["availability_zone"]))

    # -- snapshots ---------------------------------------------------------
    def get_snapshot(self, context, snapshot_id):
        body = self._c(context).call(
            "GET", "/snapshots/%s" % snapshot_id,
            not_found=exception.SnapshotNotFound(snapshot_id=snapshot_id))
        return _translate_snapshot(body["snapshot"])

    def get_all_snapshots(self, context):
        body = self._c(context).call("GET", "/snapshots/detail")
        return [_translate_snapshot(s) for s in body["snapshots"]]

    def _create_snapshot(self, context, volume_id, name, description,
                         force):
        snap = {"volume_id": volume_id, "name": name,
                "description": description, "force": force}
        body = self._c(context).call(
            "POST", "/snapshots", body={"snapshot": snap},
            not_found=exception.VolumeNotFound(volume_id=volume_id))
        return _translate_snapshot(body["snapshot"])

    def create_snapshot(self, context, volume_id, name, description):
        return self._create_snapshot(context, volume_id, name, description,
                                     False)

    def create_snapshot_force(self, context, volume_id, name, description):
        return self._create_snapshot(context, volume_id, name, description,
                                     True)

    def delete_snapshot(self, context, snapshot_id):
        self._c(context).call(
            "DELETE", "/snapshots/%s" % snapshot_id, ok=(202, 204),
            not_found=exception.SnapshotNotFound(snapshot_id=snapshot_id))

    # -- attachments (3.44) ------------------------------------------------
    def attachment_create(self, context, volume_id, instance_id,
                          connector=None, mountpoint=None):
        att = {"volume_uuid": volume_id, "instance_uuid": instance_id,
               "connector": _with_mountpoint(connector, mountpoint)}
        body = self._c(context).call(
            "POST", "/attachments", ATTACHMENT_VERSION,
            body={"attachment": att},
            not_found=exception.VolumeNotFound(volume_id=volume_id))
        return _translate_attachment(body["attachment"])

    def attachment_get(self, context, attachment_id):
        body = self._c(context).call(
            "GET", "/attachments/%s" % attachment_id, ATTACHMENT_VERSION,
            not_found=exception.VolumeAttachmentNotFound(
                attachment_id=attachment_id))
        return _translate_attachment(body["attachment"])

    def attachment_get_all(self, context, instance_id=None, volume_id=None):
        """Attachments filtered by instance and/or volume (3.44)."""
        body = self._c(context).call("GET", "/attachments",
                                     ATTACHMENT_VERSION)
        out = []
        for att in body["attachments"]:
            if instance_id and att.get("instance") != instance_id:
                continue
            if volume_id and att.get("volume_id") != volume_id:
                continue
            out.append(_translate_attachment(att))
        return out

    def attachment_update(self, context, attachment_id, connector,
                          mountpoint=None):
        body = self._c(context).call(
            "PUT", "/attachments/%s" % attachment_id, ATTACHMENT_VERSION,
            body={"attachment": {"connector": _with_mountpoint(
                connector, mountpoint)}},
            not_found=exception.VolumeAttachmentNotFound(
                attachment_id=attachment_id))
        return _translate_attachment(body["attachment"])

    def attachment_complete(self, context, attachment_id):
        self._c(context).call(
            "POST", "/attachments/%s/action" % attachment_id,
            ATTACHMENT_VERSION, body={"os-complete": None},
            ok=(200, 202, 204),
            not_found=exception.VolumeAttachmentNotFound(
                attachment_id=attachment_id))

    def attachment_delete(self, context, attachment_id):
        try:
            self._c(context).call(
                "DELETE", "/attachments/%s" % attachment_id,
                ATTACHMENT_VERSION, ok=(200, 202, 204),
                not_found=exception.VolumeAttachmentNotFound(
                    attachment_id=attachment_id))
        except exception.VolumeAttachmentNotFound:
            # Already gone: what the caller wanted (Nova ignores it too).
            LOG.info("Attachment %s already deleted", attachment_id)


def _with_mountpoint(connector, mountpoint):
    if connector is None:
        return None
    connector = dict(connector)
    if mountpoint:
        connector["mountpoint"] = mountpoint
    return connector


def _translate_attachment(att):
    out = {"id": att["id"], "status": att.get("status"),
           "instance": att.get("instance"),
           "volume_id": att.get("volume_id"),
           "attach_mode": att.get("attach_mode"),
           "attached_at": att.get("attached_at"),
           "detached_at": att.get("detached_at"),
           "connection_info": att.get("connection_info") or {}}
    return out
