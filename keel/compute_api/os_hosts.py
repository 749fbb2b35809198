"""The deprecated os-hosts API's host lookups and compute calls.

The list is the services of every cell (one query per cell) with their
zones (one aggregates query); a host's usage is its first compute node and
its instances (one query each, in the host's cell). Enable/disable,
maintenance and power actions check that the host runs a compute service
(in the cell its host mapping names) and call that compute.
"""
from keel.compute import rpcapi as compute_rpcapi
from keel.compute_api import availability_zones as az_api
from keel import context as keel_context
from keel import objects

API_SERVICES = ("nova-osapi_compute", "nova-metadata")


def list_hosts(ctx, zone=None):
    """Enabled services (not the API's) as (host, topic, zone)."""
    services = [s for s in az_api.services_all_cells(ctx)
                if not s.disabled]
    az_api.set_zones(ctx, services)
    return [(s.host, s.topic, s.availability_zone) for s in services
            if s.binary not in API_SERVICES
            and (not zone or s.availability_zone == zone)]


def _host_cell(ctx, host):
    """A context targeted at ``host``'s cell (HostMappingNotFound)."""
    mapping = objects.HostMapping.get_by_host(ctx, host)
    with keel_context.target_cell(ctx, mapping.cell_mapping) as cctxt:
        return cctxt


def host_usage(ctx, host):
    """(first compute node of ``host``, its instances)."""
    cctxt = _host_cell(ctx, host)
    node = objects.ComputeNode.get_first_node_by_host_for_old_compat(
        cctxt, host)
    return node, list(objects.InstanceList.get_by_host(cctxt, host))


def _compute_host(ctx, host):
    cctxt = _host_cell(ctx, host)
    service = objects.Service.get_by_compute_host(cctxt, host)
    return cctxt, service.host


def set_host_enabled(ctx, host, enabled):
    cctxt, host = _compute_host(ctx, host)
    return compute_rpcapi.ComputeAPI().set_host_enabled(cctxt, host,
                                                         enabled)


def set_host_maintenance(ctx, host, mode):
    cctxt, host = _compute_host(ctx, host)
    return compute_rpcapi.ComputeAPI().host_maintenance_mode(
        cctxt, host, host, mode)


def host_power_action(ctx, host, action):
    cctxt, host = _compute_host(ctx, host)
    return compute_rpcapi.ComputeAPI().host_power_action(cctxt, host,
                                                         action)
