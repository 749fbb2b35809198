"""Unshelve in the conductor (Nova's ComputeTaskManager.unshelve_instance).

A SHELVED instance still has its guest on its host: the task becomes
powering-on and that host's compute starts it (no scheduling). A
SHELVED_OFFLOADED one has no host: the shelved image is looked up, the
scheduler picks (and claims in Placement) a host honouring the request
spec's zone (2.77) and requested destination (2.91), the instance takes
the host's zone, and that host's compute spawns it.

No valid host: the task is cleared and the instance stays
SHELVED_OFFLOADED; the schedule_instances event of the unshelve action
carries the error (as Nova, no fault is recorded).
"""
import sys

from oslo_log import log as logging
from oslo_serialization import jsonutils

from keel.compute import events
from keel.conductor.tasks import common
from keel.conductor.tasks import moves
from keel.conf import CONF
from keel import exception

LOG = logging.getLogger(__name__)

SHELVED, SHELVED_OFFLOADED, ERROR = "shelved", "shelved_offloaded", "error"
UNSHELVING, POWERING_ON = "unshelving", "powering-on"


def _image_api():
    from keel.image import api as image_api
    return image_api.get_api()


class UnshelveTask(moves.MoveTask):
    task_state = UNSHELVING

    def execute(self, context, instance, request_spec):
        with self.in_cell(context, instance) as (cctxt, instance):
            if instance.vm_state == SHELVED:
                instance.task_state = POWERING_ON
                instance.save(expected_task_state=UNSHELVING)
                self.compute_rpcapi.start_instance(cctxt, instance)
            elif instance.vm_state == SHELVED_OFFLOADED:
                self._schedule_and_spawn(context, cctxt, instance,
                                         request_spec)
            else:
                LOG.error("Unshelve of %s attempted but vm_state not "
                          "SHELVED or SHELVED_OFFLOADED", instance.uuid)
                instance.vm_state = ERROR
                instance.save()

    def _shelved_image(self, cctxt, instance):
        """The snapshot to spawn from; None for a volume-backed instance
        (it has none). A lost image puts the instance in ERROR."""
        image_id = instance.system_metadata.get("shelved_image_id")
        if not image_id:
            return None
        with events.EventReporter(cctxt, "get_image_info", self.host,
                                  instance.uuid):
            try:
                return jsonutils.to_primitive(
                    _image_api().get(cctxt, image_id))
            except exception.ImageNotFound as error:
                exc_info = sys.exc_info()
                reason = ("Unshelve attempted but the image %s cannot be "
                          "found." % image_id)
                LOG.error(reason)
                instance.vm_state = ERROR
                instance.save()
                common.add_fault(cctxt, instance.uuid, error, exc_info,
                                 host=self.host)
                raise exception.UnshelveException(
                    instance_id=instance.uuid, reason=reason)

    def _schedule_and_spawn(self, context, cctxt, instance, request_spec):
        image = self._shelved_image(cctxt, instance)
        try:
            with events.EventReporter(cctxt, "schedule_instances",
                                      self.host, instance.uuid):
                # A boot's forced host is not this move's (the 2.91 host
                # is the requested destination, kept).
                request_spec.force_hosts = None
                request_spec.force_nodes = None
                filter_properties = common.legacy_filter_properties(
                    request_spec)
                selection = self.select(context, instance, request_spec,
                                        alternates=False)[0]
                common.populate_filter_properties(filter_properties,
                                                  selection)
                common.fill_provider_mapping(request_spec, selection)
                instance.availability_zone = self._zone_of(cctxt,
                                                           selection)
                instance.save(expected_task_state=UNSHELVING)
                self.compute_rpcapi.unshelve_instance(
                    cctxt, instance, selection.service_host, request_spec,
                    image=image, filter_properties=filter_properties,
                    node=selection.nodename)
        except exception.NoValidHost:
            instance.task_state = None
            instance.save()
            LOG.warning("No valid host found for unshelve instance %s",
                        instance.uuid)
        except Exception:
            LOG.exception("Unshelve of %s failed", instance.uuid)
            instance.task_state = None
            instance.save()
            raise

    @staticmethod
    def _zone_of(cctxt, selection):
        """The chosen host's zone now (Nova's get_host_availability_zone:
        its aggregates', else the default zone)."""
        from keel.compute_api import availability_zones
        return availability_zones.host_zones(cctxt).get(
            selection.service_host, CONF.default_availability_zone)
