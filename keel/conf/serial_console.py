"""[serial_console]: the serial console (Nova's names and defaults)."""
from oslo_config import cfg

GROUP = "serial_console"

opts = [
    cfg.BoolOpt("enabled", default=False,
                help="Offer serial consoles of instances."),
    cfg.URIOpt("base_url", default="ws://127.0.0.1:6083/",
               help="Public URL of the serial console proxy users are sent "
                    "to; the console token is appended to it."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
