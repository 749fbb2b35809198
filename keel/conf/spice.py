"""[spice]: the SPICE console (Nova's names and defaults). Off by default,
as in Nova; the console proxy itself reads its own options elsewhere."""
from oslo_config import cfg

GROUP = "spice"

opts = [
    cfg.BoolOpt("enabled", default=False,
                help="Offer SPICE consoles of instances."),
    cfg.BoolOpt("agent_enabled", default=True,
                help="Enable the SPICE guest agent support in guests."),
    cfg.URIOpt("html5proxy_base_url",
               default="http://127.0.0.1:6082/spice_auto.html",
               help="Public URL of the SPICE HTML5 proxy users are sent "
                    "to; the console token is appended to it."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
