"""Request filters: what Nova adds to a request before asking Placement.

Each filter edits the RequestSpec (the requested destination's aggregates
and forbidden aggregates, the request-level root traits) so that the
Placement query built from it returns only suitable hosts.  They read the
host aggregates once per request through ``aggregates()`` (a cached loader).
"""
import logging

from keel.conf import CONF
from keel import exception

LOG = logging.getLogger(__name__)

TENANT_METADATA_KEY = "filter_tenant_id"
AZ_METADATA_KEY = "availability_zone"
STATUS_DISABLED_TRAIT = "COMPUTE_STATUS_DISABLED"


def _destination(spec):
    from keel import objects

    if not spec.obj_attr_is_set("requested_destination") or \
            spec.requested_destination is None:
        spec.requested_destination = objects.Destination()
    dest = spec.requested_destination
    if not dest.obj_attr_is_set("aggregates") or dest.aggregates is None:
        dest.aggregates = []
    if not dest.obj_attr_is_set("forbidden_aggregates") or \
            dest.forbidden_aggregates is None:
        dest.forbidden_aggregates = set()
    return dest


def require_aggregates(spec, uuids):
    """Hosts must be in one of ``uuids`` (an ``in:`` member_of)."""
    dest = _destination(spec)
    dest.aggregates = list(dest.aggregates) + [",".join(sorted(uuids))]


def _request_params(spec):
    from keel import objects

    if not spec.obj_attr_is_set("request_level_params") or \
            spec.request_level_params is None:
        spec.request_level_params = objects.RequestLevelParams()
    params = spec.request_level_params
    for name in ("root_required", "root_forbidden"):
        if not params.obj_attr_is_set(name):
            setattr(params, name, set())
    return params


def require_tenant_aggregate(ctxt, spec, aggregates):
    """[scheduler]/limit_tenants_to_placement_aggregate: a tenant named in
    aggregates' ``filter_tenant_id*`` metadata lands only in those."""
    if not CONF.scheduler.limit_tenants_to_placement_aggregate:
        return False
    mine = [agg.uuid for agg in aggregates()
            if any(key.startswith(TENANT_METADATA_KEY)
                   and value == spec.project_id
                   for key, value in (agg.metadata or {}).items())]
    if mine:
        require_aggregates(spec, mine)
        return True
    if CONF.scheduler.placement_aggregate_required_for_tenants:
        raise exception.RequestFilterFailed(
            reason="No hosts available for tenant")
    return False


def map_az_to_placement_aggregate(ctxt, spec, aggregates):
    """The requested zone becomes member_of its aggregates."""
    if not CONF.scheduler.query_placement_for_availability_zone:
        return False
    az = spec.availability_zone if spec.obj_attr_is_set(
        "availability_zone") else None
    if not az:
        return False
    uuids = [agg.uuid for agg in aggregates()
             if (agg.metadata or {}).get(AZ_METADATA_KEY) == az]
    if not uuids:
        return False
    require_aggregates(spec, uuids)
    return True


def require_image_type_support(ctxt, spec, aggregates):
    """The host must support the image's disk format (a volume-backed
    server has no image to convert)."""
    if not CONF.scheduler.query_placement_for_image_type_support:
        return False
    if spec.obj_attr_is_set("is_bfv") and spec.is_bfv:
        return False
    image = spec.image if spec.obj_attr_is_set("image") else None
    disk_format = image.disk_format if image is not None and \
        image.obj_attr_is_set("disk_format") else None
    if not disk_format:
        return False
    trait = "COMPUTE_IMAGE_TYPE_%s" % disk_format.upper()
    _request_params(spec).root_required.add(trait)
    return True


def compute_status_filter(ctxt, spec, aggregates):
    """Never a node whose compute service is disabled (the compute sets
    COMPUTE_STATUS_DISABLED on its providers)."""
    _request_params(spec).root_forbidden.add(STATUS_DISABLED_TRAIT)
    return True


def isolate_aggregates(ctxt, spec, aggregates):
    """An aggregate requiring traits (``trait:X=required`` metadata) is
    forbidden unless the request asks for all of them."""
    if not CONF.scheduler.enable_isolated_aggregate_filtering:
        return False
    from keel.scheduler import resource_request

    wanted = resource_request.ResourceRequest.from_request_spec(
        spec).all_required_traits()
    forbidden = set()
    for agg in aggregates():
        needs = {key[len("trait:"):] for key, value in
                 (agg.metadata or {}).items()
                 if key.startswith("trait:") and value == "required"}
        if needs and not needs <= wanted:
            forbidden.add(agg.uuid)
    if not forbidden:
        return False
    dest = _destination(spec)
    dest.forbidden_aggregates = set(dest.forbidden_aggregates) | forbidden
    return True


ALL_REQUEST_FILTERS = [
    require_tenant_aggregate,
    map_az_to_placement_aggregate,
    require_image_type_support,
    compute_status_filter,
    isolate_aggregates,
]


def process_request_spec(ctxt, spec, aggregates):
    """Run every request filter; ``aggregates`` is a no-argument callable
    returning the host aggregates (called only if a filter needs them)."""
    cache = []

    def load():
        if not cache:
            cache.append(list(aggregates()))
        return cache[0]

    for fn in ALL_REQUEST_FILTERS:
        if fn(ctxt, spec, load):
            LOG.debug("Request filter %s modified the request",
                      fn.__name__)
