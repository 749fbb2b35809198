"""External events (Neutron, Cinder, Cyborg ...) routed to the computes.

The instances of a request are read with one mapping query and one query
per cell; events are grouped by host (an instance being migrated also has
its events sent to the migration's source and destination) and each host
gets one ``external_instance_event`` cast.
"""
import collections

from oslo_log import log as logging

from keel import context as keel_context
from keel import objects

LOG = logging.getLogger(__name__)

# Events that must name what they are about (a volume, a power state).
TAG_REQUIRED = ("volume-extended", "power-update")
_POWER_ACTIONS = {"POWER_ON": "start", "POWER_OFF": "stop"}


def get_instances(ctx, uuids):
    """{uuid: Instance} of the mapped, not deleted instances."""
    by_cell, cells = collections.defaultdict(list), {}
    for im in objects.InstanceMappingList.get_by_instance_uuids(
            ctx, list(uuids)):
        if im.cell_mapping is not None:
            cells[im.cell_mapping.uuid] = im.cell_mapping
            by_cell[im.cell_mapping.uuid].append(im.instance_uuid)
    found = {}
    for cell_uuid, cell_uuids in by_cell.items():
        with keel_context.target_cell(ctx, cells[cell_uuid]) as cctxt:
            for inst in objects.InstanceList.get_by_filters(
                    cctxt, {"uuid": cell_uuids, "deleted": False},
                    expected_attrs=["migration_context"]):
                found[inst.uuid] = inst
    return found


def _hosts_of(inst):
    hosts = {inst.host}
    mctx = inst.migration_context if inst.obj_attr_is_set(
        "migration_context") else None
    if mctx is not None:
        try:
            mig = objects.Migration.get_by_id(inst._context,
                                              mctx.migration_id)
            hosts.update(h for h in (mig.source_compute, mig.dest_compute)
                         if h)
        except Exception:  # noqa: BLE001 - the instance's host still gets it
            LOG.warning("Migration of %s not found", inst.uuid)
    return hosts


def _record_action(inst, event):
    """Volume extends and power updates show up as instance actions."""
    if event.name == "volume-extended":
        name = "extend_volume"
    elif event.name == "power-update":
        name = _POWER_ACTIONS.get(event.tag)
        if name is None:
            LOG.warning("Invalid power state %s in event %s; skipped",
                        event.tag, event.name)
            return False
    else:
        return True
    objects.InstanceAction.action_start(inst._context, inst.uuid, name,
                                        want_result=False)
    return True


def send(ctx, instances, events):
    """Cast each host its instances and events."""
    from keel.compute import rpcapi as compute_rpcapi
    by_uuid = {i.uuid: i for i in instances}
    hosts_of = {i.uuid: _hosts_of(i) for i in instances}
    insts_by_host = collections.defaultdict(list)
    events_by_host = collections.defaultdict(list)
    cell_ctx = {}
    for inst in instances:
        for host in hosts_of[inst.uuid]:
            insts_by_host[host].append(inst)
            cell_ctx.setdefault(host, inst._context)
    for event in events:
        if not _record_action(by_uuid[event.instance_uuid], event):
            continue
        for host in hosts_of[event.instance_uuid]:
            events_by_host[host].append(event)
    api = compute_rpcapi.ComputeAPI()
    for host, host_instances in insts_by_host.items():
        if not events_by_host[host]:
            continue
        try:
            api.external_instance_event(cell_ctx[host], host_instances,
                                        events_by_host[host], host=host)
        except Exception:  # noqa: BLE001 - other hosts still get theirs
            LOG.exception("Could not send events to %s", host)
