"""build_instances: a compute gave up on a build and asks for another host.

The compute sends back the alternates the scheduler chose with the first
host (``host_lists``). The next alternate's Placement allocation request
is claimed (it replaces whatever the instance still holds, so the
allocations move); a refused claim (the capacity went meanwhile) moves on
to the following alternate. When none is left, or [scheduler]/max_attempts
is reached, the instance goes to ERROR with Nova's fault. Computes that
send no host list (pre-Queens) get a fresh scheduling decision instead.
"""
import copy

from oslo_log import log as logging
from oslo_serialization import jsonutils

from keel.conductor.tasks import common
from keel import context as keel_context
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)


def exhausted(instance_uuid):
    return exception.MaxRetriesExceeded(reason=(
        "Exhausted all hosts available for retrying build failures for "
        "instance %s." % instance_uuid))


class Reschedule:

    def __init__(self, host, scheduler_client, compute_rpcapi, report_client):
        self.host = host
        self.scheduler = scheduler_client
        self.compute_rpcapi = compute_rpcapi
        self.report = report_client

    def execute(self, context, instances, image, filter_properties,
                admin_password, injected_files, requested_networks,
                security_groups, block_device_mapping=None, legacy_bdm=True,
                request_spec=None, host_lists=None):
        filter_properties = dict(filter_properties or {})
        if request_spec is None:
            request_spec = self._spec_for_old_compute(
                context, instances[0], image, filter_properties)
        is_reschedule = host_lists is not None
        try:
            common.populate_retry(filter_properties, instances[0].uuid)
            if is_reschedule:
                if not host_lists or not host_lists[0]:
                    raise exhausted(instances[0].uuid)
            else:
                common.setup_instance_group(context, request_spec)
                host_lists = self.scheduler.select_destinations(
                    context, request_spec,
                    [inst.uuid for inst in instances],
                    return_objects=True, return_alternates=True)
        except Exception as exc:  # noqa: BLE001 - ERROR, never stuck
            attempts = filter_properties.get("retry", {}).get(
                "num_attempts", 1)
            for instance in instances:
                if attempts <= 1:
                    _destroy_build_request(context, instance.uuid)
                self._give_up(context, instance, exc, request_spec,
                              requested_networks)
            return
        for instance, host_list in zip(instances, host_lists):
            try:
                self._one(context, instance, list(host_list), is_reschedule,
                          image, filter_properties, admin_password,
                          injected_files, requested_networks,
                          security_groups, request_spec)
            except Exception as exc:  # noqa: BLE001 - ERROR, never stuck
                LOG.exception("Reschedule of %s failed", instance.uuid)
                self._give_up(context, instance, exc, request_spec,
                              requested_networks)

    def _one(self, context, instance, host_list, is_reschedule, image,
             filter_properties, admin_password, injected_files,
             requested_networks, security_groups, request_spec):
        cctxt = _cell_context(context, instance.uuid)
        instance._context = cctxt
        selection = host_list.pop(0)
        if is_reschedule:
            if not _waiting_for_a_host(cctxt, instance.uuid):
                return
            try:
                selection = self._claim_next(cctxt, request_spec, instance,
                                             selection, host_list)
            except Exception as exc:  # noqa: BLE001 - ERROR, never stuck
                self._give_up(cctxt, instance, exc, request_spec,
                              requested_networks)
                return
            if selection is None:
                self._give_up(cctxt, instance, exhausted(instance.uuid),
                              request_spec, requested_networks)
                return
            # The claim moved the allocations: so do the group mappings.
            common.fill_provider_mapping(request_spec, selection)
        if selection.obj_attr_is_set("availability_zone") and \
                selection.availability_zone:
            instance.availability_zone = selection.availability_zone
        try:
            # Also tells us whether the user deleted it meanwhile.
            instance.save(expected_vm_state=common.BUILDING,
                          expected_task_state=common.BUILD_TASK_STATES)
        except (exception.InstanceNotFound,
                exception.InstanceUpdateConflict):
            LOG.debug("Instance deleted during build",
                      instance_uuid=instance.uuid)
            self._release(cctxt, instance.uuid)
            return
        props = copy.deepcopy(filter_properties)
        common.populate_filter_properties(props, selection)
        attempts = props.get("retry", {}).get("num_attempts", 1)
        if not is_reschedule and attempts <= 1 and not self._first_placement(
                context, instance, selection):
            self._release(cctxt, instance.uuid)
            return
        bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
            cctxt, instance.uuid)
        if is_reschedule:
            self._reattach(cctxt, instance, bdms)
        LOG.debug("Selected host: %s; Selected node: %s; Alternates: %s",
                  selection.service_host, selection.nodename,
                  [(a.service_host, a.nodename) for a in host_list],
                  instance_uuid=instance.uuid)
        self.compute_rpcapi.build_and_run_instance(
            cctxt, instance=instance, host=selection.service_host,
            image=image, request_spec=request_spec, filter_properties=props,
            admin_password=admin_password, injected_files=injected_files,
            requested_networks=requested_networks,
            security_groups=security_groups, block_device_mapping=bdms,
            node=selection.nodename, limits=selection.limits,
            host_list=host_list)

    def _reattach(self, context, instance, bdms):
        """The failed host's cleanup deleted the volume attachments: give
        each volume BDM a live one again (Nova's
        _validate_existing_attachment_ids)."""
        volume_bdms = [b for b in bdms if b.is_volume and b.attachment_id]
        if not volume_bdms:
            return
        volumes = self.volume_api()
        if volumes is None:
            return
        for bdm in volume_bdms:
            try:
                volumes.attachment_get(context, bdm.attachment_id)
            except exception.VolumeAttachmentNotFound:
                attachment = volumes.attachment_create(
                    context, bdm.volume_id, instance.uuid)
                bdm.attachment_id = attachment["id"]
                bdm.save()

    @staticmethod
    def volume_api():
        from keel.clients import cinder
        from keel.conf import CONF

        return cinder.API() if cinder.is_configured(CONF) else None

    # -- claims ------------------------------------------------------------
    def _claim_next(self, context, spec, instance, selection, host_list):
        """The first alternate whose allocation request Placement accepts
        (None when none does)."""
        while selection is not None:
            if self._claim(context, spec, instance, selection):
                return selection
            LOG.info("Alternate %s has no room any more for %s",
                     selection.service_host, instance.uuid)
            selection = host_list.pop(0) if host_list else None
        return None

    def _claim(self, context, spec, instance, selection):
        if not selection.allocation_request:
            # A scheduler that does not use Placement: nothing to claim.
            return True
        areq = jsonutils.loads(selection.allocation_request)
        project_id = spec.project_id or instance.project_id
        user_id = spec.user_id or instance.user_id
        current = self.report.get_allocs_for_consumer(context,
                                                      instance.uuid) or {}
        generation = current.get("consumer_generation") \
            if current.get("allocations") else None
        # Replacing what the failed host may still hold moves the
        # allocations in one write.
        return self.report.put_allocations(
            context, instance.uuid, areq["allocations"], project_id,
            user_id, generation)

    def _release(self, context, instance_uuid):
        try:
            self.report.delete_allocation_for_instance(context,
                                                       instance_uuid)
        except Exception:  # noqa: BLE001 - the heal periodic finds leftovers
            LOG.exception("Could not delete the allocations of %s",
                          instance_uuid)

    # -- failures -----------------------------------------------------------
    def _give_up(self, context, instance, exc, spec, requested_networks):
        """Nova's _cleanup_when_reschedule_fails: ERROR with the fault and
        notifications, networks and allocations released."""
        context = _cell_context(context, instance.uuid)
        if not common.put_in_error(context, instance.uuid, exc, spec,
                                   host=self.host):
            # Deleted, being deleted, or no longer building (a stale
            # message): whatever holds it now owns its resources.
            return
        try:
            from keel.network import api as network_api

            network_api.get_api().deallocate_for_instance(
                context, instance, requested_networks=requested_networks)
        except Exception:  # noqa: BLE001 - best effort, as Nova
            LOG.debug("Could not deallocate the networks of %s",
                      instance.uuid, exc_info=True)
        self._release(context, instance.uuid)

    # -- pre-Queens computes ------------------------------------------------
    @staticmethod
    def _spec_for_old_compute(context, instance, image, filter_properties):
        return objects.RequestSpec.from_components(
            context, instance.uuid, image, instance.flavor,
            instance.numa_topology if instance.obj_attr_is_set(
                "numa_topology") else None,
            instance.pci_requests if instance.obj_attr_is_set(
                "pci_requests") else None,
            filter_properties, None, instance.availability_zone,
            project_id=instance.project_id, user_id=instance.user_id)

    @staticmethod
    def _first_placement(context, instance, selection):
        """Map a first (non-reschedule) placement to its cell and remove
        the BuildRequest; False when the user deleted it meanwhile."""
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                context, instance.uuid)
        except exception.InstanceMappingNotFound:
            mapping = None
        if mapping is not None and mapping.cell_mapping is None:
            host_mapping = objects.HostMapping.get_by_host(
                context, selection.service_host)
            mapping.cell_mapping = host_mapping.cell_mapping
            mapping.save()
        if not _destroy_build_request(context, instance.uuid):
            if mapping is not None:
                mapping.destroy()
            return False
        return True


def _waiting_for_a_host(context, instance_uuid):
    """Is the instance still a build that lost its host? A second delivery
    of a reschedule, or one for a server deleted meanwhile, must not move
    the allocations of what runs (or is deleted) elsewhere."""
    try:
        current = objects.Instance.get_by_uuid(context, instance_uuid)
    except exception.InstanceNotFound:
        return False
    waiting = (current.vm_state == common.BUILDING and not current.host and
               current.task_state in common.BUILD_TASK_STATES)
    if not waiting:
        LOG.info("Not rescheduling %s: it is %s/%s on %s", instance_uuid,
                 current.vm_state, current.task_state, current.host)
    return waiting


def _destroy_build_request(context, instance_uuid):
    """True if we removed it; False if it was gone (deleted by the user)."""
    try:
        objects.BuildRequest.get_by_instance_uuid(
            context, instance_uuid).destroy()
    except exception.BuildRequestNotFound:
        return False
    return True


def _cell_context(context, instance_uuid):
    """The context aimed at the instance's cell: a reschedule comes from a
    compute with a context that targets nothing. Without an API database
    (a cell conductor) the default [database] is the cell."""
    if getattr(context, "db_connection", None) is not None:
        return context
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance_uuid)
    except Exception:  # noqa: BLE001 - no API database here
        return context
    if mapping.cell_mapping is None:
        return context
    cctxt = copy.copy(context)
    keel_context.set_target_cell(cctxt, mapping.cell_mapping)
    return cctxt
