"""[conductor]: the conductor service (Nova's names and defaults)."""
from oslo_config import cfg

group = cfg.OptGroup("conductor", title="Conductor options")

opts = [
    cfg.IntOpt("workers", min=0,
               help="Conductor worker processes (default: the CPU count)."),
]


def register_opts(conf):
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts():
    return {group: opts}
