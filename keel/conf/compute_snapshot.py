"""Options of server snapshots (Nova's names and defaults):
[DEFAULT]/non_inheritable_image_properties."""
from oslo_config import cfg

default_opts = [
    cfg.ListOpt("non_inheritable_image_properties",
                default=["cache_in_nova", "bittorrent"],
                help="Image properties a snapshot does not copy from the "
                     "image the server was booted from (the image signature "
                     "properties are never copied)."),
]


def register_opts(conf):
    conf.register_opts(default_opts)


def list_opts():
    return {"DEFAULT": default_opts}
