"""[filter_scheduler]: the options of the scheduler's host filtering that
keel implements so far (Nova's names and defaults)."""
from oslo_config import cfg

group = cfg.OptGroup("filter_scheduler", title="Filter scheduler options")

opts = [
    cfg.BoolOpt("track_instance_changes", default=True,
                help="Computes send their instance lists to the schedulers "
                     "(at start, on changes and periodically) so that the "
                     "schedulers know which instances each host runs."),
]


def register_opts(conf):
    # Fresh group object: see keel/conf/database.py.
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts():
    return {group: opts}
