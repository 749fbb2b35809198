"""Options of resize and cold migration (Nova's names and defaults):
[DEFAULT]/allow_resize_to_same_host and [DEFAULT]/resize_confirm_window."""
from oslo_config import cfg

default_opts = [
    cfg.BoolOpt("allow_resize_to_same_host", default=False,
                help="Allow a resize to pick the host the instance runs on "
                     "(a cold migration never does)."),
    cfg.IntOpt("resize_confirm_window", default=0, min=0,
               help="Seconds after which a resize waiting for "
                    "confirmation (VERIFY_RESIZE) is confirmed "
                    "automatically; 0 disables it."),
]


def register_opts(conf):
    conf.register_opts(default_opts)


def list_opts():
    return {"DEFAULT": default_opts}
