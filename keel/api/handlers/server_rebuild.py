"""rebuild on POST /servers/{id}/action, with Nova's policies, schemas,
error answers and response body.

The answer (202) is the server as it is after the request was accepted:
before 2.75 a shorter body (no extended attributes; key_name from 2.54),
from 2.75 the full ``GET /servers/{id}`` body; ``adminPass`` when
[api]/enable_instance_password, ``user_data`` from 2.57, and a Location
header naming the server, as Nova.
"""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import server_power as power_handler
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import server_rebuild as schema
from keel.api.views import server_create as create_view
from keel.api.views import servers as view
from keel.compute_api import server_create_checks as checks
from keel.compute_api import server_rebuild as rebuild_api
from keel.conf import CONF
from keel import exception
from keel.policies import servers as server_names
from keel import policy

# Request key -> compute API argument, taken as given when present.
_PLAIN = (("name", "display_name"), ("metadata", "metadata"),
          ("accessIPv4", "access_ip_v4"), ("accessIPv6", "access_ip_v6"))
# What the answer leaves out of the server body before 2.75.
_NOT_BEFORE_275 = ("OS-EXT-AZ:", "OS-EXT-SRV-ATTR:", "OS-EXT-STS:",
                   "OS-SRV-USG:", "os-extended-volumes:")
_NOT_BEFORE_275_KEYS = ("security_groups", "config_drive", "host_status")
_EXTENDED_ADDRESS = ("OS-EXT-IPS:type", "OS-EXT-IPS-MAC:mac_addr")


def _bad(message):
    return webob.exc.HTTPBadRequest(explanation=message)


def _arguments(req, body, target):
    """The compute API's keyword arguments for the request ``body``."""
    kw = {}
    for key, name in _PLAIN:
        if key in body:
            kw[name] = body[key].strip() if key == "name" else body[key]
    if req.version_matches("2.19") and "description" in body:
        kw["display_description"] = body["description"]
    if "OS-DCF:diskConfig" in body:
        kw["auto_disk_config"] = body["OS-DCF:diskConfig"] == "AUTO"
    if "preserve_ephemeral" in body:
        kw["preserve_ephemeral"] = str(body["preserve_ephemeral"]).lower() \
            in ("true", "1", "on", "yes")
    if "personality" in body:
        kw["files_to_inject"] = [(f.get("path"), f.get("contents"))
                                 for f in body["personality"]]
    if req.version_matches("2.54") and "key_name" in body:
        kw["key_name"] = body["key_name"]
    if req.version_matches("2.57") and "user_data" in body:
        kw["user_data"] = body["user_data"]
    if req.version_matches("2.63") and \
            "trusted_image_certificates" in body:
        # Unlike create, None here resets the certificates.
        kw["trusted_certs"] = body["trusted_image_certificates"]
        policy.authorize(req.context, server_names.SERVERS %
                         "rebuild:trusted_certs", target)
    if req.version_matches("2.90") and "hostname" in body:
        kw["hostname"] = body["hostname"]
    if req.version_matches("2.93"):
        kw["reimage_boot_volume"] = True
    return kw


def _call(id, instance, req, image_href, password, kw):
    try:
        power_handler.run("rebuild", id, rebuild_api.rebuild, req.context,
                          instance, image_href, password, **kw)
    except webob.exc.HTTPNotFound:
        raise webob.exc.HTTPNotFound(
            explanation="Instance could not be found")
    except exception.ImageNotFound:
        raise _bad("Cannot find image for rebuild")
    except exception.KeypairNotFound:
        raise _bad("Invalid key_name provided.")
    except (exception.OverQuota, exception.Forbidden) as exc:
        if isinstance(exc, exception.PolicyNotAuthorized):
            raise
        raise webob.exc.HTTPForbidden(explanation=exc.format_message())
    except exception.NovaException as exc:
        if isinstance(exc, exception.Invalid) or exc.code == 400 or \
                isinstance(exc, (exception.ImageNotActive,)):
            raise _bad(exc.format_message())
        raise


def _plain_addresses(addresses):
    return {label: [{k: v for k, v in ip.items()
                     if k not in _EXTENDED_ADDRESS} for ip in ips]
            for label, ips in addresses.items()}


def _answer(req, id, password):
    located = servers_handler.locate(req, id)
    extras = servers_handler.page_extras(
        req, [located.instance], for_show=req.version_matches("2.71"))
    inst = located.instance
    body = view.server(req, inst, extras,
                       for_show=req.version_matches("2.71"))
    if not req.version_matches("2.75"):
        body = {k: v for k, v in body.items()
                if not k.startswith(_NOT_BEFORE_275) and
                k not in _NOT_BEFORE_275_KEYS}
        body["addresses"] = _plain_addresses(body.get("addresses") or {})
        if not req.version_matches("2.54"):
            body.pop("key_name", None)
    # The answer's own user_data (2.57) replaces the extended attribute.
    body.pop("OS-EXT-SRV-ATTR:user_data", None)
    if CONF.api.enable_instance_password:
        body["adminPass"] = password
    if req.version_matches("2.57"):
        body["user_data"] = inst.user_data if inst.obj_attr_is_set(
            "user_data") else None
    answer = {"server": body}
    return wsgi.Result(answer, 202,
                       {"Location": create_view.self_href(answer)})



@server_actions.action("rebuild")
@wsgi.expose(status=202, name="servers.rebuild")
@validation.schemas(schema.BY_VERSION)
def rebuild(req, id):
    body = req.json_body["rebuild"]
    image_href = body["imageRef"]
    password = body.get("adminPass")
    if password is None:
        password = checks.generate_password()
    instance = power_handler.located(req, id, server_names.SERVERS %
                                     "rebuild", in_cell=True)
    target = {"project_id": instance.project_id,
              "user_id": instance.user_id}
    kw = _arguments(req, body, target)
    _call(id, instance, req, image_href, password, kw)
    return _answer(req, id, password)
