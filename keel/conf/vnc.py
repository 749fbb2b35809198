"""[vnc]: the VNC console (Nova's names and defaults); the console proxy
itself reads its own options elsewhere."""
from oslo_config import cfg

GROUP = "vnc"

opts = [
    cfg.BoolOpt("enabled", default=True, deprecated_group="DEFAULT",
                help="Offer VNC consoles of instances."),
    cfg.URIOpt("novncproxy_base_url",
               default="http://127.0.0.1:6080/vnc_auto.html",
               help="Public URL of the noVNC proxy users are sent to; the "
                    "console token is appended to it."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
