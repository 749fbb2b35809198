"""Options of shelving (Nova's names and defaults):
[DEFAULT]/shelved_offload_time and [DEFAULT]/shelved_poll_interval."""
from oslo_config import cfg

default_opts = [
    cfg.IntOpt("shelved_offload_time", default=0, min=-1,
               help="Seconds a shelved instance stays on its host before "
                    "the periodic task offloads it (destroys the guest and "
                    "frees the host's resources). 0 offloads at once, as "
                    "part of the shelve; -1 never offloads."),
    cfg.IntOpt("shelved_poll_interval", default=3600,
               help="Seconds between the periodic checks for shelved "
                    "instances old enough to be offloaded; 0 or a negative "
                    "value disables them."),
]


def register_opts(conf):
    conf.register_opts(default_opts)


def list_opts():
    return {"DEFAULT": default_opts}
