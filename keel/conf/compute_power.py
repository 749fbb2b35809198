"""Options of the compute's power operations and power-state sync
(Nova's names and defaults): [DEFAULT]/shutdown_timeout,
[DEFAULT]/sync_power_state_interval and
[workarounds]/handle_virt_lifecycle_events."""
from oslo_config import cfg

default_opts = [
    cfg.IntOpt("shutdown_timeout", default=60, min=0,
               help="Seconds a guest is given to shut down cleanly when it "
                    "is stopped, rescued, shelved or resized before it is "
                    "powered off; 0 powers it off at once. The image "
                    "property os_shutdown_timeout overrides it."),
    cfg.IntOpt("sync_power_state_interval", default=600,
               help="Seconds between the periodic comparisons of the "
                    "database's power states with the hypervisor's (the "
                    "safety net behind lifecycle events); a negative value "
                    "disables them."),
]

workarounds_opts = [
    cfg.BoolOpt("handle_virt_lifecycle_events", default=True,
                help="Sync the power state of instances from the lifecycle "
                     "events the virt driver emits. When off, only the "
                     "periodic sync_power_state task notices a guest that "
                     "changed state on its own."),
]


def register_opts(conf):
    conf.register_opts(default_opts)
    conf.register_opts(workarounds_opts, group="workarounds")


def list_opts():
    return {"DEFAULT": default_opts, "workarounds": workarounds_opts}
