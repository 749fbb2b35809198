"""[upgrade_levels]: RPC version caps per service, as in Nova."""
from oslo_config import cfg

group = cfg.OptGroup("upgrade_levels", title="Upgrade levels")

opts = [
    cfg.StrOpt("compute",
               help="Compute RPC cap: a version, a release alias, or 'auto' "
                    "(the minimum nova-compute service version found)."),
    cfg.StrOpt("scheduler", help="Scheduler RPC cap: version or release."),
    cfg.StrOpt("conductor", help="Conductor RPC cap: version or release."),
    cfg.StrOpt("baseapi", help="Base API RPC cap."),
    cfg.StrOpt("cert", deprecated_for_removal=True, help="Unused."),
]


def register_opts(conf):
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts():
    return {group: opts}
