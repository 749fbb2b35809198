"""The notifications the build workflows send, through keel.notifications.

Kept in one place so the workflows read as state changes; every function
is best effort: a notification that cannot be sent is logged, never allowed
to break a build or its cleanup.
"""
import contextlib
import traceback

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

_PUBLISHER = "compute_task"


def _legacy_spec(spec):
    """The legacy request_spec dict of Nova's error payload."""
    if spec is None:
        return {}
    out = {"num_instances": spec.num_instances
           if spec.obj_attr_is_set("num_instances") else 1}
    if spec.obj_attr_is_set("instance_uuid"):
        out["instance_properties"] = {
            "uuid": spec.instance_uuid,
            "project_id": spec.project_id,
            "user_id": spec.user_id if spec.obj_attr_is_set("user_id")
            else None,
            "availability_zone": spec.availability_zone
            if spec.obj_attr_is_set("availability_zone") else None}
    if spec.obj_attr_is_set("flavor") and spec.flavor is not None:
        out["instance_type"] = {k: getattr(spec.flavor, k)
                                for k in ("flavorid", "name", "memory_mb",
                                          "vcpus", "root_gb", "ephemeral_gb",
                                          "swap")
                                if spec.flavor.obj_attr_is_set(k)}
    if spec.obj_attr_is_set("image") and spec.image is not None and \
            spec.image.obj_attr_is_set("id"):
        out["image"] = {"id": spec.image.id}
    return out


def build_error(context, instance_uuid, method, request_spec, state, exc,
                exc_info=None):
    """Legacy ``compute_task.<method>`` error and versioned
    ``compute_task.<method>.error`` (Nova's set_vm_state_and_notify)."""
    try:
        from keel import notifications
        from keel.notifications import instance as inst_notify

        legacy = _legacy_spec(request_spec)
        payload = {"request_spec": legacy,
                   "instance_properties":
                       legacy.get("instance_properties", {}),
                   "instance_id": instance_uuid, "state": state,
                   "method": method, "reason": str(exc)}
        notifications.get_notifier(_PUBLISHER).error(
            context, "%s.%s" % (_PUBLISHER, method), payload)
        tb = "".join(traceback.format_exception(*exc_info)) \
            if exc_info and exc_info[0] is not None else ""
        inst_notify.notify_about_compute_task_error(
            context, method, instance_uuid, request_spec, state, exc, tb)
    except Exception:  # noqa: BLE001 - best effort, see module doc
        LOG.warning("Could not send the %s error notification", method,
                    exc_info=True)


def state_update(context, instance, old_vm_state, new_vm_state,
                 old_task_state=None, new_task_state=None):
    """instance.update for a state change made by the conductor (Nova's
    send_update_with_states; it obeys [notifications]/notify_on_state_change
    on the notifications side)."""
    try:
        from keel.notifications import instance as inst_notify

        send = getattr(inst_notify, "send_update_with_states", None)
        if send is not None:
            send(context, instance, old_vm_state, new_vm_state,
                 old_task_state, new_task_state, service="conductor")
    except Exception:  # noqa: BLE001 - best effort
        LOG.warning("Could not send instance.update", exc_info=True)


@contextlib.contextmanager
def instance_delete(context, instance):
    """instance.delete.start/end around a delete done by the conductor."""
    try:
        from keel.notifications import instance as inst_notify
        cm = inst_notify.notify_about_instance_delete(
            None, context, instance, source="nova-conductor")
    except Exception:  # noqa: BLE001 - best effort
        LOG.debug("No delete notifications", exc_info=True)
        cm = contextlib.nullcontext()
    with cm:
        yield
