"""Availability zones as Nova derives them: a compute service is in the
zones named by the ``availability_zone`` metadata of its host's aggregates
(several are joined with ","), else in [DEFAULT]/default_availability_zone;
every other service is in [DEFAULT]/internal_service_availability_zone.
A zone is available when at least one enabled service is in it.
"""
from oslo_log import log as logging

from keel.conf import CONF
from keel.db import cells as cells_db
from keel import objects
from keel.objects import aggregate as aggregate_obj

LOG = logging.getLogger(__name__)
COMPUTE = "nova-compute"
# API services are not maintained like the others: left out of listings.
API_SERVICES = ("nova-osapi_compute", "nova-metadata")


def _services_in_cell(cctxt):
    return list(objects.ServiceList.get_all(cctxt))


def services_all_cells(context):
    """Every service of every cell (one query per cell, in parallel); a
    cell that fails is logged and left out."""
    results = cells_db.scatter_gather_all_cells(context, _services_in_cell)
    services = []
    for cell_uuid, result in results.items():
        if cells_db.is_cell_failure_sentinel(result):
            LOG.warning("Cell %s did not list its services: %s", cell_uuid,
                        result)
            continue
        services.extend(result)
    return services


def host_zones(context):
    """``{host: "az1,az2"}`` from one aggregates query."""
    zones = {}
    key = aggregate_obj.AZ_KEY
    for agg in objects.AggregateList.get_by_metadata_key(context, key):
        for host in agg.hosts:
            zones.setdefault(host, set()).add(agg.metadata[key])
    return {host: ",".join(sorted(names)) for host, names in zones.items()}


def set_zones(context, services):
    by_host = host_zones(context)
    for service in services:
        if service.binary == COMPUTE:
            zone = by_host.get(service.host,
                               CONF.default_availability_zone)
        else:
            zone = CONF.internal_service_availability_zone
        service.availability_zone = zone
    return services


def get_availability_zones(context, services=None):
    """``(available, not_available)`` zone names, each sorted; a zone with
    only disabled services is not available."""
    if services is None:
        services = set_zones(context, services_all_cells(context))
    available = {s.availability_zone for s in services if not s.disabled}
    unavailable = {s.availability_zone for s in services
                   if s.disabled} - available
    return sorted(available), sorted(unavailable)
