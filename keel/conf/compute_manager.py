"""[DEFAULT] options of the compute manager's periodic tasks (Nova's names)."""
from oslo_config import cfg

opts = [
    cfg.IntOpt("update_resources_interval", default=0,
               help="Seconds between resource updates to Placement by the "
                    "resource tracker; 0 runs it at the default periodic "
                    "interval (60 s), a negative value disables it."),
    cfg.IntOpt("scheduler_instance_sync_interval", default=120,
               help="Seconds between the compute's reports of its instance "
                    "uuids to the schedulers (0 or less: every periodic "
                    "run)."),
    cfg.IntOpt("instance_build_timeout", default=0, min=0,
               help="Seconds an instance may stay in BUILD on a compute "
                    "before it is set to ERROR; 0 disables the check."),
    cfg.IntOpt("block_device_allocate_retries", default=60, min=0,
               help="Times a build checks whether a volume it created for "
                    "a block device mapping is available."),
    cfg.IntOpt("block_device_allocate_retries_interval", default=3, min=0,
               help="Seconds between those checks."),
]


def register_opts(conf):
    conf.register_opts(opts)


def list_opts():
    return {"DEFAULT": opts}
