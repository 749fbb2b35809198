"""evacuate in the compute API (Nova's API.evacuate).

A server whose compute service is down is rebuilt on another host: the
state must be active, stopped or error (any task, launched; no lock check,
as Nova), the source service down (ComputeServiceInUse otherwise). The
instance takes task_state REBUILDING (CAS over no task), the "evacuate"
action is recorded, and a Migration of type evacuation (status accepted)
is left as the tombstone the source compute finds when it comes back.
Then the legacy compute.instance.evacuate and versioned instance.evacuate
notifications and the conductor's rebuild_instance with recreate=True:
to the named host when forced (before 2.29, or force from 2.29), else
through the scheduler (a named host becomes the requested destination).
"""
from oslo_log import log as logging

from keel.compute_api import host_api
from keel.compute_api import server_power as common
from keel.conf import CONF
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

REBUILDING = "rebuilding"
EVACUATE_VM_STATES = [common.ACTIVE, common.STOPPED, common.ERROR]


def _conductor():
    from keel.conductor import rpcapi
    return rpcapi.ComputeTaskAPI()


def check_host_exists(ctx, host):
    """ComputeHostNotFound / HostMappingNotFound for an unknown host."""
    mapping = objects.HostMapping.get_by_host(ctx, host)
    from keel import context as keel_context
    with keel_context.target_cell(ctx, mapping.cell_mapping) as cctxt:
        objects.Service.get_by_compute_host(cctxt, host)


def _notify(ctx, instance):
    try:
        from keel.notifications import instance as notif
        from keel.notifications import legacy
        legacy.notify_about_instance_usage(ctx, instance, "evacuate",
                                           host=CONF.host)
        notif.notify_about_instance_action(
            ctx, instance, CONF.host, action="evacuate",
            source=notif.SOURCE_API)
    except Exception:  # noqa: BLE001 - a side channel
        LOG.exception("Could not emit the evacuate notifications")


def evacuate(ctx, instance, host, on_shared_storage, admin_password=None,
             force=None, target_state=None):
    common.check_state(instance, "evacuate", vm_state=EVACUATE_VM_STATES,
                       task_state=None)
    source = instance.host
    service = objects.Service.get_by_compute_host(instance._context, source)
    if host_api.is_up(service):
        LOG.error("Instance compute service state on %s expected to be "
                  "down, but it was up.", source)
        raise exception.ComputeServiceInUse(host=source)
    spec = objects.RequestSpec.get_by_instance_uuid(ctx, instance.uuid)
    common.claim(instance, REBUILDING)
    common.record_action(instance, "evacuate")
    # The tombstone the source compute cleans up after when it is back.
    migration = objects.Migration(
        instance._context, source_compute=source, source_node=instance.node,
        instance_uuid=instance.uuid, status="accepted",
        migration_type="evacuation")
    if host:
        migration.dest_compute = host
    migration.create()
    _notify(ctx, instance)
    if force is False and host:
        # Not forced: the scheduler checks the named host.
        nodes = objects.ComputeNodeList.get_all_by_host(instance._context,
                                                        host)
        spec.requested_destination = objects.Destination(
            host=nodes[0].host, node=nodes[0].hypervisor_hostname)
        host = None
    _conductor().rebuild_instance(
        ctx, instance, new_pass=admin_password, injected_files=None,
        image_ref=None, orig_image_ref=None, orig_sys_metadata=None,
        bdms=None, recreate=True, on_shared_storage=on_shared_storage,
        host=host, request_spec=spec, target_state=target_state)
