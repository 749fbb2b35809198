"""POST /servers/{server_id}/remote-consoles (2.6+) and the older
os-getVNCConsole / os-getSerialConsole actions (up to 2.5): a URL to the
console proxy carrying a fresh console token. VNC and serial consoles are
offered; SPICE, RDP and MKS are not (400, Nova's "Unavailable console
type")."""
import webob.exc

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import server_power
from keel.api.schemas import server_power as schema
from keel.compute_api import server_consoles as consoles_api
from keel import exception
from keel.policies import server_power as names

_HANDLERS = {"vnc": consoles_api.get_vnc_console,
             "serial": consoles_api.get_serial_console,
             "spice": consoles_api.get_spice_console}


def _console_url(req, id, protocol, console_type):
    instance = server_power.located(req, id, names.REMOTE_CONSOLES)
    handler = _HANDLERS.get(protocol)
    try:
        if handler is None:
            raise exception.ConsoleTypeUnavailable(console_type=protocol)
        return server_power.run(f"get_{protocol}_console", id, handler,
                                req.context, instance, console_type)["url"]
    except (exception.ConsoleTypeInvalid,
            exception.ConsoleTypeUnavailable) as exc:
        raise webob.exc.HTTPBadRequest(explanation=exc.format_message())


@wsgi.expose(min_version="2.6", name="servers.remote_consoles.create")
@validation.schema(schema.create_console_v26, "2.6", "2.7")
@validation.schema(schema.create_console_v28, "2.8", "2.98")
@validation.schema(schema.create_console_v299, "2.99")
def create(req, server_id):
    body = req.json_body["remote_console"]
    protocol, console_type = body["protocol"], body["type"]
    url = _console_url(req, server_id, protocol, console_type)
    return {"remote_console": {"protocol": protocol, "type": console_type,
                               "url": url}}


@server_actions.action("os-getVNCConsole")
@wsgi.expose(max_version="2.5", name="servers.get_vnc_console")
@validation.schema(schema.get_vnc_console)
def get_vnc_console(req, id):
    console_type = req.json_body["os-getVNCConsole"]["type"]
    url = _console_url(req, id, "vnc", console_type)
    return {"console": {"type": console_type, "url": url}}


@server_actions.action("os-getSerialConsole")
@wsgi.expose(max_version="2.5", name="servers.get_serial_console")
@validation.schema(schema.get_serial_console)
def get_serial_console(req, id):
    console_type = req.json_body["os-getSerialConsole"]["type"]
    url = _console_url(req, id, "serial", console_type)
    return {"console": {"type": console_type, "url": url}}


@server_actions.action("os-getSPICEConsole")
@wsgi.expose(max_version="2.5", name="servers.get_spice_console")
@validation.schema(schema.get_spice_console)
def get_spice_console(req, id):
    console_type = req.json_body["os-getSPICEConsole"]["type"]
    url = _console_url(req, id, "spice", console_type)
    return {"console": {"type": console_type, "url": url}}


def route_entries():
    return {"/servers/{server_id}/remote-consoles": {"POST": create}}
