"""Objects: Selection — one host the scheduler picked for an instance,
with the Placement allocation request to claim it (primary or alternate)."""
from oslo_serialization import jsonutils

from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class Selection(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'allocation_request': fields.StringField(nullable=True),
        'allocation_request_version': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'cell_uuid': fields.UUIDField(),
        'compute_node_uuid': fields.UUIDField(),
        'limits': fields.ObjectField('SchedulerLimits', nullable=True),
        'nodename': fields.StringField(),
        'service_host': fields.StringField(),
    }

    @classmethod
    def from_host_state(cls, host_state, allocation_request=None,
                        allocation_request_version=None):
        """From a scheduler HostState (uuid, host, nodename, cell_uuid,
        limits); the allocation request is stored as its JSON text."""
        from keel.objects import request_spec

        limits = getattr(host_state, "limits", None)
        if isinstance(limits, dict):
            limits = request_spec.SchedulerLimits.from_dict(limits)
        return cls(compute_node_uuid=host_state.uuid,
                   service_host=host_state.host,
                   nodename=host_state.nodename,
                   cell_uuid=host_state.cell_uuid,
                   limits=limits,
                   allocation_request=(jsonutils.dumps(allocation_request)
                                       if allocation_request is not None
                                       else None),
                   allocation_request_version=allocation_request_version,
                   availability_zone=getattr(host_state,
                                             "availability_zone", None))

    def to_dict(self):
        """The legacy host dict older callers expect."""
        limits = self.limits.to_dict() if self.limits is not None else {}
        return {"host": self.service_host, "nodename": self.nodename,
                "limits": limits}
