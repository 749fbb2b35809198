"""[filter_scheduler]: host filtering and weighing (Nova's names and
defaults)."""
from oslo_config import cfg

group = cfg.OptGroup("filter_scheduler", title="Filter scheduler options")

DEFAULT_FILTERS = [
    "ComputeFilter",
    "ComputeCapabilitiesFilter",
    "ImagePropertiesFilter",
    "ServerGroupAntiAffinityFilter",
    "ServerGroupAffinityFilter",
]

opts = [
    cfg.BoolOpt("track_instance_changes", default=True,
                help="Computes send their instance lists to the schedulers "
                     "(at start, on changes and periodically) so that the "
                     "schedulers know which instances each host runs."),
    cfg.IntOpt("host_subset_size", default=1, min=1,
               help="Pick the host at random among this many best-weighed "
                    "hosts (reduces collisions between schedulers)."),
    cfg.IntOpt("max_io_ops_per_host", default=8, min=0,
               help="IoOpsFilter: most concurrent I/O-heavy operations."),
    cfg.IntOpt("max_instances_per_host", default=50, min=1,
               help="NumInstancesFilter: most instances on one host."),
    cfg.MultiStrOpt("available_filters",
                    default=["nova.scheduler.filters.all_filters"],
                    help="Filter classes the scheduler may use; "
                         "nova.scheduler.filters.all_filters means every "
                         "built-in one."),
    cfg.ListOpt("enabled_filters", default=DEFAULT_FILTERS,
                help="Filters applied to each host, in this order."),
    cfg.ListOpt("weight_classes",
                default=["nova.scheduler.weights.all_weighers"],
                help="Weighers applied to the hosts that passed the "
                     "filters."),
    cfg.FloatOpt("ram_weight_multiplier", default=1.0,
                 help="Positive: spread by free RAM; negative: stack."),
    cfg.FloatOpt("cpu_weight_multiplier", default=1.0,
                 help="Positive: spread by free vCPUs; negative: stack."),
    cfg.FloatOpt("disk_weight_multiplier", default=1.0,
                 help="Positive: spread by free disk; negative: stack."),
    cfg.FloatOpt("io_ops_weight_multiplier", default=-1.0,
                 help="Weight of the host's I/O operation count."),
    cfg.FloatOpt("pci_weight_multiplier", default=1.0, min=0.0,
                 help="Weight of the host's free PCI devices."),
    cfg.FloatOpt("soft_affinity_weight_multiplier", default=1.0, min=0.0,
                 help="Weight of group members already on the host for "
                      "soft-affinity groups."),
    cfg.FloatOpt("soft_anti_affinity_weight_multiplier", default=1.0,
                 min=0.0,
                 help="Weight against group members already on the host "
                      "for soft-anti-affinity groups."),
    cfg.FloatOpt("build_failure_weight_multiplier", default=1000000.0,
                 help="Weight against hosts with recent build failures."),
    cfg.FloatOpt("cross_cell_move_weight_multiplier", default=1000000.0,
                 help="Preference for the current cell during moves."),
    cfg.FloatOpt("hypervisor_version_weight_multiplier", default=1.0,
                 help="Weight of the hypervisor version."),
    cfg.FloatOpt("num_instances_weight_multiplier", default=0.0,
                 help="Weight of the host's instance count."),
    cfg.BoolOpt("shuffle_best_same_weighed_hosts", default=False,
                help="Shuffle the best hosts that weigh the same."),
    cfg.StrOpt("image_properties_default_architecture",
               help="Architecture assumed for images that name none."),
    cfg.ListOpt("isolated_images", default=[],
                help="Image UUIDs that may only run on isolated_hosts."),
    cfg.ListOpt("isolated_hosts", default=[],
                help="Hosts reserved to isolated_images."),
    cfg.BoolOpt("restrict_isolated_hosts_to_isolated_images", default=True,
                help="Isolated hosts accept only isolated images."),
    cfg.StrOpt("aggregate_image_properties_isolation_namespace",
               help="Only image properties in this namespace are matched "
                    "against aggregate metadata."),
    cfg.StrOpt("aggregate_image_properties_isolation_separator",
               default=".",
               help="Separator between the namespace and the key."),
]


def register_opts(conf):
    # Fresh group object: see keel/conf/database.py.
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts():
    return {group: opts}
