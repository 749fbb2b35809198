"""compute_task.<task>.error: a conductor task that failed for an
instance (ComputeTaskPayload 1.0)."""
from keel.notifications import base
from keel.notifications import fields as nf
from keel.notifications.objects import common
from keel.notifications.objects import request_spec as rs_payload
from keel.objects import fields


def _as_request_spec(context, request_spec):
    """An object for a legacy dict spec (Nova's conductor still passes
    those on some paths); None when it cannot be made into one."""
    if request_spec is None or not isinstance(request_spec, dict):
        return request_spec
    from keel import objects
    from_primitives = getattr(objects.RequestSpec, 'from_primitives', None)
    if from_primitives is None:
        return None
    try:
        return from_primitives(context, request_spec, {})
    except Exception:  # noqa: BLE001 - the payload allows a null spec
        return None


@base.notification
class ComputeTaskPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    fields = {
        'instance_uuid': fields.UUIDField(),
        'request_spec': fields.ObjectField('RequestSpecPayload',
                                           nullable=True),
        'state': nf.InstanceStateField(nullable=True),
        'reason': fields.ObjectField('ExceptionPayload'),
    }

    def __init__(self, instance_uuid, request_spec, state, reason,
                 context=None, traceback_text=None):
        super().__init__()
        self.instance_uuid = instance_uuid
        spec = _as_request_spec(context, request_spec)
        self.request_spec = (rs_payload.RequestSpecPayload(spec)
                             if spec is not None else None)
        self.state = state
        self.reason = common.ExceptionPayload.from_exception(
            reason, traceback_text)


@base.notification
class ComputeTaskNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('ComputeTaskPayload')}
