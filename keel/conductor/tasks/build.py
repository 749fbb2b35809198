"""schedule_and_build_instances: the super-conductor's half of a boot.

0. Each BuildRequest is taken by one delivery of the cast (a compare-
   and-swap on its updated_at: the safety net may re-send a request whose
   original is only late); requests another delivery took, or whose
   BuildRequest is already gone (deleted while queued, or a second
   delivery handled it), are dropped before anything is claimed.
1. Ask the scheduler for a host (claimed in Placement) and alternates for
   each instance; if it cannot, every instance is buried in cell0.
2. For each instance: find the host's cell, check the BuildRequest is still
   there, then write the instance with its action, BDMs and tags to that
   cell in one transaction.
3. Re-check the quota now that the instances count ([quota]/recheck_quota):
   a race lost puts them in ERROR with a fault.
4. Point the InstanceMapping at the cell and delete the BuildRequest, in
   one API transaction (lookups.commit_build): the commit point. If it is
   already gone the user deleted the server while we worked: the instance
   and its allocations are removed, nothing is built. Otherwise cast
   build_and_run_instance to the host with the remaining alternates.

Any unexpected failure of one instance after its record exists puts it in
ERROR with a fault (mapped, BuildRequest removed) instead of leaving it in
BUILD; before the record exists it is buried in cell0.
"""
import sys

from oslo_db import exception as db_exc
from oslo_log import log as logging
from oslo_utils import timeutils

from keel.conductor.tasks import cell0
from keel.conductor.tasks import common
from keel.conductor.tasks import lease
from keel.conductor.tasks import lookups
from keel.conductor.tasks import notify
from keel.conductor.tasks import safety
from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

# What the compute needs of an instance it builds (as a fresh create has).
_ADOPT_ATTRS = ["flavor", "metadata", "system_metadata", "info_cache",
                "security_groups", "tags", "numa_topology", "pci_requests",
                "keypairs", "trusted_certs"]


class _Build:
    """One instance of the request on its way to a compute."""

    def __init__(self, build_request, spec, host_list):
        self.build_request = build_request
        self.spec = spec
        self.host_list = list(host_list)
        self.instance = None
        self.cell = None
        self.bdms = None
        self.tags = None

    @property
    def uuid(self):
        return self.build_request.instance_uuid


class ScheduleAndBuild:

    def __init__(self, host, scheduler_client, compute_rpcapi, report_client):
        self.host = host
        self.scheduler = scheduler_client
        self.compute_rpcapi = compute_rpcapi
        self.report = report_client

    def execute(self, context, build_requests, request_specs, image,
                admin_password, injected_files, requested_networks,
                block_device_mapping, tags=None):
        self.image = image or {}
        self.bdm = block_device_mapping
        self.tags = tags
        present, busy = self._take(context, build_requests)
        # Renew the take while this delivery works: the safety net must not
        # take a slow delivery for a lost one (tasks/lease.py).
        with lease.BuildLease(context, present, self._stamp,
                              safety.redrive_after() / 4):
            self._build(context, build_requests, request_specs, present,
                        busy, admin_password, injected_files,
                        requested_networks, block_device_mapping, tags)

    def _build(self, context, build_requests, request_specs, present, busy,
               admin_password, injected_files, requested_networks,
               block_device_mapping, tags):
        wanted = [(br, spec) for br, spec in zip(build_requests,
                                                  request_specs)
                  if br.instance_uuid not in busy and
                  self._still_wanted(context, br.instance_uuid, present)]
        if not wanted:
            return
        build_requests = [br for br, _ in wanted]
        request_specs = [spec for _, spec in wanted]
        uuids = [spec.instance_uuid for spec in request_specs]
        try:
            host_lists = self._schedule(context, request_specs[0], uuids)
        except Exception as exc:  # noqa: BLE001 - every failure is buried
            LOG.exception("Failed to schedule instances")
            if not isinstance(exc, exception.NoValidHost):
                # The scheduler may have claimed and its answer got lost
                # (the call timed out): nothing stays claimed for them.
                for uuid in uuids:
                    self._release(context, uuid)
            cell0.bury(context, request_specs[0], exc, image=self.image,
                       build_requests=build_requests,
                       block_device_mapping=block_device_mapping, tags=tags,
                       host=self.host)
            return
        builds = [_Build(br, spec, hl) for br, spec, hl in
                  zip(build_requests, request_specs, host_lists)]
        # Deleted while we were scheduling? One look for the whole request.
        self._present = self._lookup(context, uuids)
        created = [b for b in builds if self._create_or_bury(context, b)]
        if created and not self._recheck_quota(context, created):
            return
        for build in created:
            try:
                self._commit_and_cast(context, build, admin_password,
                                      injected_files, requested_networks)
            except Exception as exc:  # noqa: BLE001 - never stuck in BUILD
                LOG.exception("Build of %s failed in the conductor",
                              build.uuid)
                self._fail(context, build, exc)

    # -- scheduling ---------------------------------------------------------
    def _schedule(self, context, spec, uuids):
        common.setup_instance_group(context, spec)
        with timeutils.StopWatch() as timer:
            host_lists = self.scheduler.select_destinations(
                context, spec, uuids, return_objects=True,
                return_alternates=True)
        LOG.debug("Took %0.2f seconds to select destinations for %s "
                  "instance(s).", timer.elapsed(), len(uuids))
        return host_lists

    # -- instance records ---------------------------------------------------
    @staticmethod
    def _cell_of(context, host):
        # Cached per process (lookups.HOST_CELL_TTL).
        return lookups.cell_of_host(context, host)

    def _create_or_bury(self, context, build):
        """Anything that stops the cell record from being written buries
        the instance in cell0 and frees its claim."""
        try:
            return self._create(context, build)
        except Exception as exc:  # noqa: BLE001 - no BuildRequest left behind
            if not isinstance(exc, exception.HostMappingNotFound):
                LOG.exception("Could not place instance %s", build.uuid)
            self._release(context, build.uuid)
            cell0.bury(context, build.spec, exc, image=self.image,
                       build_requests=[build.build_request],
                       block_device_mapping=self.bdm, tags=self.tags,
                       host=self.host)
            return False

    def _create(self, context, build):
        """Write the instance to its host's cell; False if it was buried
        in cell0 or the user deleted it already."""
        selection = build.host_list[0]
        try:
            build.cell = self._cell_of(context, selection.service_host)
        except exception.HostMappingNotFound:
            LOG.error("No host-to-cell mapping found for selected host "
                      "%(host)s. Setup is incomplete.",
                      {"host": selection.service_host})
            raise
        if build.uuid not in self._present:
            LOG.debug("While scheduling instance, the build request was "
                      "already deleted.", instance_uuid=build.uuid)
            self._forget(context, build.uuid)
            return False
        # One transaction: if it fails nothing is in the cell, and the
        # caller buries the instance in cell0 instead.
        instance = common.new_instance(context, build.build_request,
                                       build.spec, self.image)
        if selection.obj_attr_is_set("availability_zone") and \
                selection.availability_zone:
            instance.availability_zone = selection.availability_zone
        try:
            with keel_context.target_cell(context, build.cell) as cctxt:
                build.bdms, build.tags = common.create_in_cell(
                    cctxt, instance, self.bdm, self.tags)
            build.instance = instance
        except db_exc.DBDuplicateEntry:
            return self._adopt(context, build, selection)
        return True

    def _adopt(self, context, build, selection):
        """An earlier delivery of this request wrote the record and died
        before its commit point (the safety net sent the request again):
        carry on with that record rather than write a second one."""
        with keel_context.target_cell(context, build.cell) as cctxt:
            instance = objects.Instance.get_by_uuid(
                cctxt, build.uuid, expected_attrs=_ADOPT_ATTRS)
            if instance.vm_state != common.BUILDING or instance.host:
                LOG.error("Instance %s already exists in cell %s (%s on %s)"
                          ": not building it again.", build.uuid,
                          build.cell.identity, instance.vm_state,
                          instance.host)
                self._release(context, build.uuid)
                return False
            LOG.info("Instance %s was written by an earlier delivery of "
                     "this request; continuing with it.", build.uuid)
            if selection.obj_attr_is_set("availability_zone") and \
                    selection.availability_zone:
                instance.availability_zone = selection.availability_zone
            instance.save(expected_vm_state=common.BUILDING,
                          expected_task_state=[common.SCHEDULING, None])
            build.bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
                cctxt, build.uuid)
            build.tags = instance.tags
        build.instance = instance
        return True

    def _recheck_quota(self, context, builds):
        """Nova re-counts after creating so two racing requests cannot both
        pass the API's check; the loser's instances go to ERROR."""
        if not CONF.quota.recheck_quota:
            return True
        from keel.compute_api import quota

        spec = builds[0].spec
        try:
            quota.check_deltas(context, {"instances": 0, "cores": 0,
                                         "ram": 0},
                               spec.project_id, spec.user_id)
        except exception.OverQuota as over:
            overs = over.kwargs.get("overs") or []
            first = overs[0] if overs else "instances"
            exc = exception.TooManyInstances(
                overs=",".join(overs), req=len(builds),
                used=(over.kwargs.get("usages") or {}).get(first, 0),
                allowed=(over.kwargs.get("quotas") or {}).get(first, 0))
            for build in builds:
                self._fail(context, build, exc)
            return False
        except Exception:  # noqa: BLE001 - the API's check already passed
            LOG.exception("Quota recheck failed; building anyway")
        return True

    # -- the commit point and the cast ---------------------------------------
    def _commit_and_cast(self, context, build, admin_password,
                         injected_files, requested_networks):
        instance = build.instance
        selection = build.host_list.pop(0)
        alternates = build.host_list
        LOG.debug("Selected host: %s; Selected node: %s; Alternates: %s",
                  selection.service_host, selection.nodename,
                  [(a.service_host, a.nodename) for a in alternates],
                  instance_uuid=build.uuid)
        filter_props = common.legacy_filter_properties(build.spec)
        common.populate_retry(filter_props, build.uuid)
        common.populate_filter_properties(filter_props, selection)
        common.fill_provider_mapping(build.spec, selection)
        # One cell-targeted context for the notification and the cast
        # (targeting parses the cell's transport URL).
        with keel_context.target_cell(context, build.cell) as cctxt:
            # From nothing to building, with no task states (as Nova).
            notify.state_update(cctxt, instance, None, common.BUILDING,
                                None, None, host=self.host)
            if not lookups.commit_build(context, build.uuid, build.cell):
                LOG.info("The build request of %s was deleted during "
                         "scheduling: not building it.", build.uuid)
                self._undo_create(context, build)
                return
            secgroups = [sg.identifier for sg in
                         build.spec.security_groups] \
                if build.spec.obj_attr_is_set("security_groups") else []
            self.compute_rpcapi.build_and_run_instance(
                cctxt, instance=instance, host=selection.service_host,
                image=self.image, request_spec=build.spec,
                filter_properties=filter_props,
                admin_password=admin_password,
                injected_files=injected_files,
                requested_networks=requested_networks,
                security_groups=secgroups, block_device_mapping=build.bdms,
                node=selection.nodename, limits=selection.limits,
                host_list=alternates)

    @staticmethod
    def _map(context, instance_uuid, cell):
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            context, instance_uuid)
        if mapping.cell_mapping is not None and \
                mapping.cell_mapping.uuid != cell.uuid:
            LOG.error("During scheduling instance is already mapped to "
                      "another cell: %s. Overwriting the mapping to point "
                      "at cell %s.", mapping.cell_mapping.identity,
                      cell.identity, instance_uuid=instance_uuid)
        mapping.cell_mapping = cell
        mapping.save()

    def _undo_create(self, context, build):
        """The user won: remove what we created, free the claim."""
        instance = build.instance
        with keel_context.target_cell(context, build.cell) as cctxt:
            instance._context = cctxt
            with notify.instance_delete(cctxt, instance, host=self.host):
                try:
                    instance.destroy()
                except exception.InstanceNotFound:
                    pass
        self._release(context, build.uuid)

    # -- cleanup ----------------------------------------------------------------
    def _release(self, context, instance_uuid):
        try:
            self.report.delete_allocation_for_instance(context,
                                                       instance_uuid)
        except Exception:  # noqa: BLE001 - the heal periodic finds leftovers
            LOG.exception("Could not delete the allocations of %s",
                          instance_uuid)

    @staticmethod
    def _lookup(context, uuids):
        try:
            return lookups.build_requests_present(context, uuids)
        except Exception:  # noqa: BLE001 - the commit point still decides
            LOG.exception("Could not look the build requests up")
            return set(uuids)

    def _take(self, context, build_requests):
        """The build requests this delivery builds (see
        lookups.take_build_requests). One that another delivery of this
        request has taken is left to it: not wanted here, not forgotten."""
        uuids = [br.instance_uuid for br in build_requests]
        self._stamp = timeutils.utcnow().replace(tzinfo=None, microsecond=0)
        try:
            taken = lookups.take_build_requests(context, build_requests,
                                                self._stamp)
        except Exception:  # noqa: BLE001 - left for the safety net
            # Building without the take could race a re-drive; the
            # BuildRequests stay untouched, so the net re-sends them.
            LOG.exception("Could not take the build requests; leaving "
                          "them to be re-driven")
            return set(), set(uuids)
        busy = self._lookup(context, set(uuids) - taken) \
            if len(taken) < len(uuids) else set()
        for uuid in busy:
            LOG.info("The build request of %s is being handled by another "
                     "delivery of this request: not building it here.",
                     uuid)
        return taken, busy

    def _still_wanted(self, context, instance_uuid, present):
        """Is the BuildRequest still there? If not, the user deleted the
        server while the request queued, or this is a second delivery of a
        request already handled: either way there is nothing to schedule
        (and no claim to take)."""
        if instance_uuid in present:
            return True
        LOG.info("The build request of %s is gone before scheduling: not "
                 "building it.", instance_uuid)
        self._forget(context, instance_uuid, release=False)
        return False

    def _forget(self, context, instance_uuid, release=True):
        """Nothing was created here: no orphan mapping, no allocations.
        A mapping that points at a cell belongs to an instance placed by
        another delivery of this request: that one is left alone."""
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(
                context, instance_uuid)
        except exception.InstanceMappingNotFound:
            mapping = None
        if mapping is not None and mapping.cell_mapping is not None:
            LOG.warning("Instance %s is already placed in cell %s; this "
                        "request was handled before.", instance_uuid,
                        mapping.cell_mapping.identity)
            return
        if mapping is not None:
            try:
                mapping.destroy()
            except exception.InstanceMappingNotFound:
                pass
        if release:
            self._release(context, instance_uuid)

    def _fail(self, context, build, exc):
        """ERROR with a fault in its cell; mapped there, BuildRequest and
        claim gone, so the user sees (and can delete) the failure."""
        exc_info = sys.exc_info()
        if exc_info[1] is not exc:
            exc_info = (type(exc), exc, exc.__traceback__)
        with keel_context.target_cell(context, build.cell) as cctxt:
            common.put_in_error(cctxt, build.uuid, exc, build.spec,
                                exc_info=exc_info, host=self.host)
        for step in (lambda: self._map(context, build.uuid, build.cell),
                     build.build_request.destroy,
                     lambda: self._release(context, build.uuid)):
            try:
                step()
            except (exception.BuildRequestNotFound,
                    exception.InstanceMappingNotFound):
                pass
            except Exception:  # noqa: BLE001 - do the other steps
                LOG.exception("Cleanup step failed for %s", build.uuid)
