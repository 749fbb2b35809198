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
    # Fresh group object: see keel/conf/database.py.
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts():
    return {group: opts}
