"""resize, migrate, confirmResize and revertResize in the compute API
(Nova's API.resize, confirm_resize, revert_resize), within one cell.

resize and migrate claim the instance (task resize_prep, a CAS over no
task) and cast the conductor's migrate_server; confirm and revert find the
finished migration, mark it (confirming / reverting) and cast the compute
that acts first: the source for a confirm, the destination for a revert.
"""
from keel.compute_api import host_api
from keel.compute_api import quota
from keel.compute_api import server_power as common
from keel.compute_api import server_rescue
from keel.conf import CONF
from keel import exception
from keel import objects

RESIZE_VM_STATES = ["active", "stopped"]
RESIZED = "resized"


def _conductor():
    from keel.conductor import rpcapi
    return rpcapi.ComputeTaskAPI()


def _check_service_up(instance):
    """Nova's check_instance_host(check_is_up=True)."""
    common.check_host(instance)
    service = objects.Service.get_by_compute_host(instance._context,
                                                  instance.host)
    if not host_api.is_up(service):
        raise exception.ServiceUnavailable()


def new_flavor(ctx, flavor_id, current, instance):
    flavor = objects.Flavor.get_by_flavor_id(ctx, flavor_id,
                                             read_deleted="no")
    if flavor.disabled:
        raise exception.FlavorNotFound(flavor_id=flavor_id)
    if flavor.flavorid == current.flavorid:
        raise exception.CannotResizeToSameFlavor()
    if flavor.root_gb == 0 and current.root_gb != 0 and \
            not server_rescue.is_volume_backed(instance):
        raise exception.CannotResizeDisk(
            reason="Resize to zero disk flavor is not allowed.")
    return flavor


def check_upsize_quota(ctx, instance, current, flavor):
    """Only growth is counted (Nova's _check_quota_for_upsize)."""
    deltas = {name: getattr(flavor, attr) - getattr(current, attr)
              for name, attr in (("cores", "vcpus"), ("ram", "memory_mb"))}
    deltas = {k: v for k, v in deltas.items() if v > 0}
    if deltas:
        quota.check_deltas(ctx, deltas, instance.project_id,
                           user_id=instance.user_id)


def resize(ctx, instance, flavor_id=None, host_name=None,
           clean_shutdown=True):
    """``flavor_id`` None: a cold migration (admin), optionally to
    ``host_name`` (2.56)."""
    method = "resize" if flavor_id else "migrate"
    common.check_locked(ctx, instance)
    _check_service_up(instance)
    common.check_state(instance, method, vm_state=RESIZE_VM_STATES)
    current = instance.flavor
    flavor = current
    if flavor_id:
        flavor = new_flavor(ctx, flavor_id, current, instance)
        check_upsize_quota(ctx, instance, current, flavor)
    if host_name:
        if host_name == instance.host:
            raise exception.CannotMigrateToSameHost()
        nodes = objects.ComputeNodeList.get_all_by_host(instance._context,
                                                        host_name)
        if not nodes:
            raise exception.ComputeHostNotFound(host=host_name)
    spec = objects.RequestSpec.get_by_instance_uuid(ctx, instance.uuid)
    ignore = []
    if not flavor_id or not CONF.allow_resize_to_same_host:
        ignore.append(instance.host)
    spec.ignore_hosts = ignore
    spec.requested_destination = objects.Destination(host=host_name) \
        if host_name else None
    common.claim(instance, "resize_prep", progress=0)
    common.record_action(instance, method)
    _conductor().migrate_server(
        ctx, instance, scheduler_hint={"filter_properties": {
            "ignore_hosts": ignore}},
        live=False, rebuild=False, flavor=flavor, block_migration=None,
        disk_over_commit=None, reservations=[],
        clean_shutdown=clean_shutdown, request_spec=spec, do_cast=True)


def _finished_migration(instance):
    return objects.Migration.get_by_instance_and_status(
        instance._context, instance.uuid, "finished")


def confirm_resize(ctx, instance):
    common.check_locked(ctx, instance)
    common.check_state(instance, "confirmResize", vm_state=[RESIZED])
    migration = _finished_migration(instance)
    source = objects.Service.get_by_compute_host(instance._context,
                                                 migration.source_compute)
    if not host_api.is_up(source):
        raise exception.ServiceUnavailable()
    migration.status = "confirming"
    migration.save()
    common.record_action(instance, "confirmResize")
    common.compute_rpc().confirm_resize(
        instance._context, instance, migration, migration.source_compute)


def revert_resize(ctx, instance):
    common.check_locked(ctx, instance)
    common.check_state(instance, "revertResize", vm_state=[RESIZED])
    migration = _finished_migration(instance)
    common.claim(instance, "resize_reverting")
    migration.status = "reverting"
    migration.save()
    common.record_action(instance, "revertResize")
    spec = objects.RequestSpec.get_by_instance_uuid(ctx, instance.uuid)
    if instance.old_flavor is not None:
        # Scheduling of later moves uses the flavor the revert restores.
        spec.flavor = instance.old_flavor
        spec.save()
    common.compute_rpc().revert_resize(
        instance._context, instance, migration, migration.dest_compute,
        spec)
