"""[compute]: Nova's compute-service options that keel implements."""
from oslo_config import cfg

GROUP = "compute"

group = cfg.OptGroup(GROUP, title="Compute Service Options")

opts = [
    cfg.IntOpt("resource_provider_association_refresh", default=300, min=0,
               mutable=True,
               help="Seconds between refreshes of the cached aggregates and "
                    "traits of this host's resource providers from Placement. "
                    "0 disables the refresh: the cache is filled only at "
                    "start-up (or after a SIGHUP)."),
    cfg.IntOpt("consecutive_build_service_disable_threshold", default=10,
               min=0, mutable=True,
               help="Non-zero: count this host's failed builds (reset by "
                    "a success) in its compute node stats, which the "
                    "scheduler's BuildFailureWeigher uses with "
                    "[filter_scheduler]/build_failure_weight_multiplier to "
                    "prefer other hosts. 0 disables the counting."),
    cfg.IntOpt("max_disk_devices_to_attach", default=-1, min=-1,
               help="Maximum number of disk devices (root disk and "
                    "volumes) one instance of this host may have; a volume "
                    "attach beyond it is refused with 403. -1: no limit."),
]


def register_opts(conf):
    # A fresh OptGroup per ConfigOpts: a shared one would share overrides.
    conf.register_group(cfg.OptGroup(GROUP, title=group.title))
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {group: opts}
