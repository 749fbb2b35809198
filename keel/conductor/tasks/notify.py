"""The notifications the build workflows send, through keel.notifications.

Kept in one place so the workflows read as state changes; every function
is best effort: a notification that cannot be sent is logged, never allowed
to break a build or its cleanup.
"""
import contextlib
import traceback

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def build_error(context, instance_uuid, method, request_spec, state, exc,
                exc_info=None, host=None):
    """Legacy ``compute_task.<method>`` error and versioned
    ``compute_task.<method>.error`` (Nova's set_vm_state_and_notify)."""
    try:
        from keel.notifications import instance as inst_notify

        tb = "".join(traceback.format_exception(*exc_info)) \
            if exc_info and exc_info[0] is not None else None
        inst_notify.notify_compute_task_failure(
            context, method, instance_uuid, request_spec, state, exc, tb=tb,
            host=host)
    except Exception:  # noqa: BLE001 - best effort, see module doc
        LOG.warning("Could not send the %s error notification", method,
                    exc_info=True)


def state_update(context, instance, old_vm_state, new_vm_state,
                 old_task_state=None, new_task_state=None, host=None):
    """instance.update for a state change made by the conductor (Nova's
    send_update_with_states; [notifications]/notify_on_state_change
    decides on the notifications side whether it is sent)."""
    try:
        from keel.notifications import instance as inst_notify

        inst_notify.send_update_with_states(
            context, instance, old_vm_state, new_vm_state, old_task_state,
            new_task_state, service="conductor", host=host)
    except Exception:  # noqa: BLE001 - best effort
        LOG.warning("Could not send instance.update", exc_info=True)


@contextlib.contextmanager
def instance_delete(context, instance, host=None):
    """instance.delete.start/end around a delete done by the conductor."""
    try:
        from keel.notifications import instance as inst_notify

        cm = inst_notify.notify_about_instance_delete(
            context, instance, source=inst_notify.SOURCE_CONDUCTOR,
            host=host)
    except Exception:  # noqa: BLE001 - best effort
        LOG.warning("Could not send the delete notifications",
                    exc_info=True)
        cm = contextlib.nullcontext()
    with cm:
        yield
