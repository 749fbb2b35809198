"""[fake_driver]: resources and behaviour of keel's fake virt driver.

Keel-specific group (upstream Nova hard-codes its fake driver's resources).
Every simulated host of a compute process (``keel compute --hosts N``,
``keel all-in-one --hosts N``) reports these amounts unless the code that
creates the driver passes its own; the failure options exist for tests and
scale experiments.
"""
from oslo_config import cfg

GROUP = "fake_driver"

group = cfg.OptGroup(GROUP, title="Fake virt driver options (keel)")

opts = [
    cfg.IntOpt("vcpus", default=1000, min=0,
               help="Physical CPUs each simulated host reports."),
    cfg.IntOpt("memory_mb", default=800000, min=0,
               help="Memory in MiB each simulated host reports."),
    cfg.IntOpt("local_gb", default=600000, min=0,
               help="Local disk in GiB each simulated host reports."),
    cfg.StrOpt("hypervisor_type", default="fake",
               help="hypervisor_type of the compute node records."),
    cfg.StrOpt("hypervisor_version", default="1.0",
               help="Hypervisor version as a dotted string; stored in "
                    "compute_nodes as Nova's integer form (1.0 -> 1000)."),
    cfg.StrOpt("cpu_info", default='{"arch": "x86_64", "model": "fake"}',
               help="cpu_info JSON of the compute node records."),
    cfg.FloatOpt("spawn_delay", default=0.0, min=0.0,
                 help="Seconds spawn() takes, to simulate slow builds."),
    cfg.ListOpt("fail_operations", default=[],
                help="Driver operations (e.g. spawn, reboot, power_off) that "
                     "raise an error on every call, for fault tests."),
]


def register_opts(conf):
    # A fresh OptGroup per ConfigOpts: a shared one would share overrides.
    conf.register_group(cfg.OptGroup(GROUP, title=group.title))
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {group: opts}
