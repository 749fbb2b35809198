"""POST /servers: read the body as Nova's servers controller does (per
microversion), check the policies, hand a CreateRequest to
keel.compute_api.server_create and answer 202 with Nova's body and
Location header, or with the reservation id.
"""
from oslo_utils import strutils
from oslo_utils import uuidutils
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import server_create as schema
from keel.api.views import server_create as view
from keel.compute_api import server_create as create_api
from keel.compute_api import server_create_checks as checks
from keel.conf import CONF
from keel import exception
from keel import objects
from keel.policies import servers as names
from keel import policy

POLICY = names.SERVERS
# Refusals Nova answers with 409 rather than 400.
_CONFLICTS = ("PortInUse", "InstanceExists", "NetworkAmbiguous",
              "NoUniqueMatch")
# Answered 400 by Nova's create whatever their own code says.
_BAD = (exception.ImageNotActive, exception.ImageBadRequest,
        exception.ImageNotAuthorized, exception.ImageUnacceptable,
        exception.NotFound, exception.Invalid)


def _bad(message):
    return webob.exc.HTTPBadRequest(explanation=message)


def _requested_networks(networks):
    """A NetworkRequestList from ``networks`` (a list, or from 2.37 the
    strings ``auto`` / ``none``)."""
    if isinstance(networks, str):
        return objects.NetworkRequestList(objects=[
            objects.NetworkRequest(network_id=networks)])
    out = []
    for net in networks:
        request = objects.NetworkRequest()
        request.address = net.get("fixed_ip")
        request.port_id = net.get("port")
        request.tag = net.get("tag")
        if request.port_id:
            request.network_id = None
            if request.address is not None:
                raise _bad(f"Specified Fixed IP '{request.address}' cannot "
                           f"be used with port '{request.port_id}': the two "
                           f"cannot be specified together.")
        else:
            if "uuid" not in net:
                raise _bad("Bad network format: missing 'uuid'")
            net_id = net["uuid"]
            if not uuidutils.is_uuid_like(net_id) and \
                    not uuidutils.is_uuid_like(net_id.split("-", 1)[-1]):
                raise _bad(f"Bad networks format: network uuid is not in "
                           f"proper format ({net_id})")
            request.network_id = net_id
        out.append(request)
    return objects.NetworkRequestList(objects=out)


def _bdms(req, ctx, target, server, kwargs):
    legacy = server.get("block_device_mapping") or []
    v2 = server.get("block_device_mapping_v2") or []
    if legacy and v2:
        raise _bad("Using different block_device_mapping syntaxes is not "
                   "allowed in the same request.")
    if legacy:
        kwargs["block_device_mapping"] = [dict(b) for b in legacy]
        kwargs["legacy_bdm"] = True
    elif v2:
        image_specified = server.get("imageRef") is not None
        try:
            kwargs["block_device_mapping"] = [
                create_api.bdm_api.from_api(b, image_specified) for b in v2]
        except exception.InvalidBDMFormat as exc:
            raise _bad(exc.format_message())
        kwargs["legacy_bdm"] = False
    if kwargs.get("block_device_mapping"):
        policy.authorize(ctx, POLICY % "create:attach_volume", target)


def _read(req, ctx, body):
    """``(flavor_ref, image_href, CreateRequest kwargs, target)``."""
    server = body["server"]
    kw = {"admin_password": server.get("adminPass")}
    if kw["admin_password"] is None:
        kw["admin_password"] = checks.generate_password()
    kw["display_name"] = server["name"].strip()
    kw["display_description"] = server.get("description") \
        if req.version_matches("2.19") else kw["display_name"]
    if req.version_matches("2.90"):
        kw["hostname"] = server.get("hostname")
    kw["metadata"] = server.get("metadata", {})
    kw["user_data"] = server.get("user_data")
    kw["key_name"] = server.get("key_name")
    kw["config_drive"] = server.get("config_drive")
    groups = server.get("security_groups")
    if groups is not None:
        kw["security_groups"] = sorted({g["name"] for g in groups
                                        if g.get("name")})
    kw["scheduler_hints"] = body.get("os:scheduler_hints") or \
        body.get("OS-SCH-HNT:scheduler_hints") or {}
    kw["min_count"] = int(server.get("min_count", 1))
    kw["max_count"] = int(server.get("max_count", kw["min_count"]))
    if kw["min_count"] > kw["max_count"]:
        raise _bad("min_count must be <= max_count")
    if req.version_matches("2.52"):
        kw["tags"] = server.get("tags")
    kw["access_ip_v4"] = server.get("accessIPv4")
    kw["access_ip_v6"] = server.get("accessIPv6")
    if "OS-DCF:diskConfig" in server:
        kw["auto_disk_config"] = server["OS-DCF:diskConfig"] == "AUTO"
    if "personality" in server:
        for item in server["personality"]:
            for key in ("path", "contents"):
                if key not in item:
                    raise _bad(f"Bad personality format: missing '{key}'")
        kw["injected_files"] = [(f["path"], f["contents"])
                                for f in server["personality"]]
    zone = server.get("availability_zone")
    target = {"project_id": ctx.project_id, "user_id": ctx.user_id,
              "availability_zone": zone}
    policy.authorize(ctx, POLICY % "create", target)
    certs = server.get("trusted_image_certificates")
    if certs:
        kw["trusted_certs"] = certs
        policy.authorize(ctx, POLICY % "create:trusted_certs", target)
    try:
        zone, host, node = checks.parse_availability_zone(zone)
    except exception.InvalidInput as exc:
        raise _bad(exc.format_message())
    if host or node:
        policy.authorize(ctx, POLICY % "create:forced_host", target)
    kw.update(availability_zone=zone, forced_host=host, forced_node=node)
    if req.version_matches("2.74"):
        want_host = server.get("host")
        want_node = server.get("hypervisor_hostname")
        if want_host or want_node:
            policy.authorize(ctx, names.REQUESTED_DESTINATION, target)
            if host or node:
                raise _bad("One mechanism with host and/or "
                           "hypervisor_hostname and another mechanism with "
                           "zone:host:node are mutually exclusive.")
        kw.update(requested_host=want_host,
                  requested_hypervisor_hostname=want_node)
    _bdms(req, ctx, target, server, kw)
    image_href = server.get("imageRef")
    if not image_href:
        if not kw.get("block_device_mapping"):
            raise _bad("Missing imageRef attribute")
        image_href = ""
    networks = server.get("networks")
    if networks is not None:
        kw["requested_networks"] = _requested_networks(networks)
        if len(kw["requested_networks"]) and \
                not kw["requested_networks"].no_allocate:
            policy.authorize(ctx, POLICY % "create:attach_network", target)
    flavor_ref = str(server["flavorRef"]).rstrip("/").rsplit("/", 1)[-1]
    return flavor_ref, image_href, kw, groups


def _create(req):
    ctx = req.context
    body = req.json_body
    flavor_ref, image_href, kw, groups = _read(req, ctx, body)
    try:
        instances, reservation_id = create_api.accept(
            ctx, flavor_ref, image_href, create_api.CreateRequest(**kw))
    except exception.PolicyNotAuthorized:
        raise
    except exception.ImageNotFound:
        raise _bad("Can not find requested image")
    except exception.KeypairNotFound:
        raise _bad("Invalid key_name provided.")
    except exception.ConfigDriveInvalidValue:
        raise _bad("Invalid config_drive provided.")
    except (exception.OverQuota, exception.Forbidden) as exc:
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.NovaException as exc:
        if type(exc).__name__ in _CONFLICTS:
            raise webob.exc.HTTPConflict(explanation=exc.format_message())
        if isinstance(exc, _BAD) or exc.code == 400:
            raise _bad(exc.format_message())
        raise
    server = body["server"]
    if strutils.bool_from_string(server.get("return_reservation_id",
                                            False)):
        return wsgi.Result({"reservation_id": reservation_id}, 202)
    answer = view.created(
        req, instances[0], groups,
        kw["admin_password"] if CONF.api.enable_instance_password
        else None)
    return wsgi.Result(answer, 202, {"Location": view.self_href(answer)})



@wsgi.expose(name="servers.create", status=202)
@validation.schemas(schema.BY_VERSION)
def create(req):
    return _create(req)


def route_entries():
    return {"/servers": {"POST": create}}
