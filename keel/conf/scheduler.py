"""[scheduler]: how the scheduler asks Placement and retries (Nova's names
and defaults)."""
from oslo_config import cfg

group = cfg.OptGroup("scheduler", title="Scheduler configuration")

opts = [
    cfg.IntOpt("max_attempts", default=3, min=1,
               help="Hosts tried for one instance: the selected host plus "
                    "max_attempts - 1 alternates kept for reschedules."),
    cfg.IntOpt("discover_hosts_in_cells_interval", default=-1, min=-1,
               help="Seconds between automatic discoveries of unmapped "
                    "compute hosts; -1 disables it."),
    cfg.IntOpt("max_placement_results", default=1000, min=1,
               help="The 'limit' sent with GET /allocation_candidates."),
    cfg.IntOpt("workers", min=0,
               help="Scheduler worker processes (default: the CPU count)."),
    cfg.IntOpt("periodic_task_interval", default=60,
               help="Seconds between the scheduler's periodic tasks."),
    cfg.BoolOpt("limit_tenants_to_placement_aggregate", default=False,
                help="Restrict a tenant to the aggregates whose metadata "
                     "has filter_tenant_id<suffix>=<project id>."),
    cfg.BoolOpt("placement_aggregate_required_for_tenants", default=False,
                help="With limit_tenants_to_placement_aggregate, a tenant "
                     "that no aggregate names gets no host at all."),
    cfg.BoolOpt("query_placement_for_availability_zone", default=True,
                help="Turn the requested availability zone into a "
                     "member_of query on the zone's aggregates."),
    cfg.BoolOpt("query_placement_for_image_type_support", default=False,
                help="Require the COMPUTE_IMAGE_TYPE_* trait of the image's "
                     "disk format."),
    cfg.BoolOpt("enable_isolated_aggregate_filtering", default=False,
                help="Keep requests away from aggregates whose required "
                     "traits (metadata trait:X=required) they do not "
                     "request."),
    cfg.BoolOpt("image_metadata_prefilter", default=False,
                help="Translate image properties into required traits."),
    cfg.BoolOpt("query_placement_for_routed_network_aggregates",
                default=False,
                help="Restrict hosts to the segments of routed networks."),
]


def register_opts(conf):
    conf.register_group(cfg.OptGroup(group.name, title=group.title))
    conf.register_opts(opts, group=group.name)


def list_opts():
    return {group: opts}
