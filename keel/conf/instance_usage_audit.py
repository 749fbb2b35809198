"""[DEFAULT]/instance_usage_audit (Nova's name and default): whether each
compute runs the periodic instance usage audit."""
from oslo_config import cfg

default_opts = [
    cfg.BoolOpt("instance_usage_audit", default=False,
                help="Run the periodic instance usage audit on this "
                     "compute: once per completed audit period "
                     "([DEFAULT]/instance_usage_audit_period) it emits "
                     "compute.instance.exists for every instance the host "
                     "had in the period and records the run in the task_log "
                     "table (read by GET /os-instance_usage_audit_log)."),
]


def register_opts(conf):
    conf.register_opts(default_opts)


def list_opts():
    return {"DEFAULT": default_opts}
