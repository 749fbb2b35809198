"""Scheduler RPC endpoint (4.5).

``select_destinations`` picks and claims hosts (see driver.py).  Besides
scheduling, the scheduler keeps a view of which instances each host runs
and which aggregates each host is in, fed by the computes' fanout casts;
the host states of a request take their instance lists from it.
"""
import threading

from oslo_log import log as logging
import oslo_messaging as messaging

from keel.conf import CONF
from keel import exception
from keel import manager
from keel.rpc import versions
# Re-exported: the view lives with the driver that reads it.
from keel.scheduler.aggregates import AggregateView  # noqa: F401

LOG = logging.getLogger(__name__)

_SENTINEL = object()


def _load_host_instances(context, host_name):
    """The host's instances from its cell database, by uuid."""
    from keel import context as keel_context
    from keel import objects

    mapping = objects.HostMapping.get_by_host(context, host_name)
    with keel_context.target_cell(context, mapping.cell_mapping) as cctxt:
        instances = objects.InstanceList.get_by_host(cctxt, host_name)
    return {inst.uuid: inst for inst in instances}


class HostInstanceView:
    """host -> {"instances": {uuid: Instance}, "updated": bool}.

    ``updated`` says the view was confirmed by the host itself (an update or
    a matching sync) rather than rebuilt from the database.
    """

    def __init__(self, loader=_load_host_instances):
        self._loader = loader
        self._lock = threading.Lock()
        self._hosts = {}

    def _recreate(self, context, host_name):
        try:
            instances = self._loader(context, host_name)
        except exception.HostMappingNotFound:
            # A new compute before discover_hosts maps it: it has no
            # instances yet, so the empty view is the right one.
            LOG.info("Host %s is not mapped to a cell yet; it has no "
                     "instances", host_name)
            instances = {}
        except Exception as exc:  # noqa: BLE001 - cell down
            LOG.warning("Could not load the instances of host %s (%s); "
                        "starting from an empty view", host_name, exc)
            instances = {}
        self._hosts[host_name] = {"instances": instances, "updated": False}

    def update(self, context, host_name, instances):
        with self._lock:
            info = self._hosts.get(host_name)
            if info is not None:
                info["instances"].update({i.uuid: i for i in instances})
                info["updated"] = True
            elif len(instances) > 1:
                # A full list (compute start-up): trust it.
                self._hosts[host_name] = {
                    "instances": {i.uuid: i for i in instances},
                    "updated": True}
                LOG.info("Received the instance list of host '%s' "
                         "(%d instances).", host_name, len(instances))
            else:
                self._recreate(context, host_name)
                LOG.info("Received an update from an unknown host '%s'. "
                         "Re-created its InstanceList.", host_name)

    def delete(self, context, host_name, instance_uuid):
        with self._lock:
            info = self._hosts.get(host_name)
            if info is not None:
                info["instances"].pop(instance_uuid, None)
                info["updated"] = True
            else:
                self._recreate(context, host_name)
                LOG.info("Received a delete update from an unknown host "
                         "'%s'. Re-created its InstanceList.", host_name)

    def sync(self, context, host_name, instance_uuids):
        with self._lock:
            info = self._hosts.get(host_name)
            if info is None:
                self._recreate(context, host_name)
                LOG.info("Received a sync request from an unknown host '%s'. "
                         "Re-created its InstanceList.", host_name)
                info = self._hosts[host_name]
                if set(info["instances"]) == set(instance_uuids):
                    info["updated"] = True
                return
            if set(info["instances"]) != set(instance_uuids):
                self._recreate(context, host_name)
                LOG.info("The instance sync for host '%s' did not match. "
                         "Re-created its InstanceList.", host_name)
                return
            info["updated"] = True
            LOG.debug("Successfully synced instances from host '%s'.",
                      host_name)

    def instances(self, host_name):
        with self._lock:
            info = self._hosts.get(host_name)
            return dict(info["instances"]) if info else {}

    def is_updated(self, host_name):
        with self._lock:
            info = self._hosts.get(host_name)
            return bool(info and info["updated"])

    def hosts(self):
        with self._lock:
            return sorted(self._hosts)

    def updated_hosts(self):
        """The hosts whose view the host itself confirmed (one lock for a
        decision's thousand hosts, not one per host)."""
        with self._lock:
            return {h for h, info in self._hosts.items() if info["updated"]}


class SchedulerManager(manager.Manager):
    target = messaging.Target(version=versions.SCHEDULER_TARGET)
    service_name = "scheduler"

    def __init__(self, host=None):
        super().__init__(host=host or CONF.host, service_name="scheduler")
        self.host_instances = HostInstanceView()
        self.aggregates = AggregateView()
        from keel.scheduler import driver
        self.driver = driver.Scheduler(instance_view=self.host_instances,
                                       aggregate_view=self.aggregates)

    @messaging.expected_exceptions(exception.NoValidHost)
    def select_destinations(self, context, request_spec=None,
                            filter_properties=None, spec_obj=_SENTINEL,
                            instance_uuids=None, return_objects=False,
                            return_alternates=False):
        """Hosts for the instances of ``spec_obj``, claimed in Placement.

        With ``return_objects`` a list (one per instance) of lists of
        Selection: the claimed host, then up to [scheduler]/max_attempts - 1
        alternates of the same cell when ``return_alternates``; otherwise
        the legacy host dicts of the claimed hosts.
        """
        from keel import objects

        if spec_obj is _SENTINEL:
            # Only pre-4.3 clients send the legacy dicts; Nova 34 never does.
            raise exception.NoValidHost(
                reason="select_destinations needs a RequestSpec object")
        LOG.debug("Starting to schedule for instances: %s", instance_uuids)
        chosen = self.driver.select_destinations(
            context, spec_obj, instance_uuids,
            return_alternates=return_alternates)
        selections = [[objects.Selection.from_host_state(
            host, allocation_request=areq, allocation_request_version=ver)
            for host, areq, ver in per_instance] for per_instance in chosen]
        if return_objects:
            return selections
        return [sel[0].to_dict() for sel in selections]

    def reset(self):
        """SIGHUP: forget the cell list, the cached host states and the
        aggregates."""
        self.driver.host_manager.reset()
        self.aggregates.reset()

    def update_aggregates(self, ctxt, aggregates):
        self.aggregates.update(aggregates)

    def delete_aggregate(self, ctxt, aggregate):
        self.aggregates.delete(aggregate)

    def update_instance_info(self, context, host_name, instance_info):
        instances = getattr(instance_info, "objects", None)
        if instances is None:
            instances = [instance_info]
        self.host_instances.update(context, host_name, list(instances))

    def delete_instance_info(self, context, host_name, instance_uuid):
        self.host_instances.delete(context, host_name, instance_uuid)

    def sync_instance_info(self, context, host_name, instance_uuids):
        self.host_instances.sync(context, host_name, instance_uuids)
