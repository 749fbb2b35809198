"""Client of the scheduler (topic ``scheduler``, API 4.5).

``select_destinations`` is a long call (``long_rpc_timeout`` with call-monitor
heartbeats); the instance and aggregate updates are fanout casts so that
every scheduler process keeps the same view.
"""
import oslo_messaging as messaging

from keel.conf import CONF
from keel import exception
from keel.rpc import serializer as rpc_serializer
from keel.rpc import transport as rpc_transport
from keel.rpc import versions

RPC_TOPIC = "scheduler"


class SchedulerAPI:

    def __init__(self):
        target = messaging.Target(topic=RPC_TOPIC, version="4.0")
        self.client = rpc_transport.get_client(
            target, version_cap=versions.scheduler_cap(),
            serializer=rpc_serializer.object_serializer())

    def select_destinations(self, ctxt, spec_obj, instance_uuids,
                            return_objects=False, return_alternates=False):
        kw = {"spec_obj": spec_obj, "instance_uuids": instance_uuids,
              "return_objects": return_objects,
              "return_alternates": return_alternates}
        version = "4.5"
        if not self.client.can_send_version(version):
            if return_objects or return_alternates:
                raise exception.NovaException(
                    "Scheduler RPC version cap %s cannot return Selection "
                    "objects" % self.client.version_cap)
            del kw["return_objects"], kw["return_alternates"]
            version = "4.4"
        if not self.client.can_send_version(version):
            del kw["instance_uuids"]
            version = "4.3"
        cctxt = self.client.prepare(
            version=version, call_monitor_timeout=CONF.rpc_response_timeout,
            timeout=CONF.long_rpc_timeout)
        return cctxt.call(ctxt, "select_destinations", **kw)

    def _fanout(self, ctxt, version, method, **kw):
        self.client.prepare(fanout=True, version=version).cast(
            ctxt, method, **kw)

    def update_aggregates(self, ctxt, aggregates):
        self._fanout(ctxt, "4.1", "update_aggregates", aggregates=aggregates)

    def delete_aggregate(self, ctxt, aggregate):
        self._fanout(ctxt, "4.1", "delete_aggregate", aggregate=aggregate)

    def update_instance_info(self, ctxt, host_name, instance_info):
        self._fanout(ctxt, "4.2", "update_instance_info",
                     host_name=host_name, instance_info=instance_info)

    def delete_instance_info(self, ctxt, host_name, instance_uuid):
        self._fanout(ctxt, "4.2", "delete_instance_info",
                     host_name=host_name, instance_uuid=instance_uuid)

    def sync_instance_info(self, ctxt, host_name, instance_uuids):
        self._fanout(ctxt, "4.2", "sync_instance_info",
                     host_name=host_name, instance_uuids=instance_uuids)
