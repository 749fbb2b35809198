"""What services call to notify about instances (Nova's compute/utils and
notifications/base helpers).

Versioned:
  notify_about_instance_create(context, instance, host, phase=None,
                               exception=None, bdms=None)
  notify_about_instance_action(context, instance, host, action, phase=None,
                               source='nova-compute', exception=None,
                               bdms=None)
  notify_about_compute_task_error(context, task_name, instance_uuid,
                                  request_spec, state, exception, tb=None)
Legacy:
  notify_about_instance_usage(context, instance, event_suffix,
                              network_info=None, extra_usage_info=None,
                              fault=None, host=None)
Both:
  notify_compute_task_failure(context, method, instance_uuid, request_spec,
                              vm_state, exc, tb=None, host=None)
      what Nova's conductor sends from set_vm_state_and_notify: legacy
      compute_task.<method> (ERROR) + versioned compute_task.<method>.error;
  notify_about_instance_delete(context, instance, delete_type='delete',
                               source='nova-api', host=None)
      a context manager: <type>.start before the block, <type>.end after
      it (also when it raises), legacy and versioned;
  send_update(context, old_instance, new_instance, service='compute',
              host=None)
      instance.update / compute.instance.update per
      [notifications]/notify_on_state_change.

All of them return before building anything when their kind is off
([notifications]/notification_format, or no notification driver).
"""
import contextlib
import logging

from keel.conf import CONF
from keel import exception as keel_exc
from keel import notifications
from keel.notifications import audit
from keel.notifications import fields as nf
from keel.notifications import legacy

LOG = logging.getLogger(__name__)

SOURCE_API = nf.NotificationSource.API
SOURCE_COMPUTE = nf.NotificationSource.COMPUTE
SOURCE_CONDUCTOR = nf.NotificationSource.CONDUCTOR

notify_about_instance_usage = legacy.notify_about_instance_usage
info_from_instance = legacy.info_from_instance


def _fault_and_priority(exception, traceback_text=None):
    from keel.notifications.objects import common
    if exception is not None:
        return (common.ExceptionPayload.from_exception(exception,
                                                       traceback_text),
                nf.NotificationPriority.ERROR)
    return None, nf.NotificationPriority.INFO


def _notification(cls, priority, host, source, obj, action, phase,
                  payload):
    from keel.notifications import base
    return cls(priority=priority,
               publisher=base.NotificationPublisher(host=host or CONF.host,
                                                    source=source),
               event_type=base.EventType(object=obj, action=action,
                                         phase=phase),
               payload=payload)


def notify_about_instance_action(context, instance, host, action, phase=None,
                                 source=SOURCE_COMPUTE, exception=None,
                                 bdms=None):
    """instance.<action>[.<phase>] with an InstanceActionPayload; an
    exception makes it ERROR priority with the fault in the payload."""
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import instance as inst_obj
    fault, priority = _fault_and_priority(exception)
    payload = inst_obj.InstanceActionPayload(
        context=context, instance=instance, fault=fault, bdms=bdms)
    _notification(inst_obj.InstanceActionNotification, priority, host,
                  source, 'instance', action, phase, payload).emit(context)


def notify_about_instance_create(context, instance, host, phase=None,
                                 exception=None, bdms=None):
    """instance.create.start/end/error (InstanceCreatePayload)."""
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import instance as inst_obj
    fault, priority = _fault_and_priority(exception)
    payload = inst_obj.InstanceCreatePayload(
        context=context, instance=instance, fault=fault, bdms=bdms)
    _notification(inst_obj.InstanceCreateNotification, priority, host,
                  SOURCE_COMPUTE, 'instance', nf.NotificationAction.CREATE,
                  phase, payload).emit(context)


def notify_about_compute_task_error(context, task_name, instance_uuid,
                                    request_spec, state, exception, tb=None,
                                    host=None):
    """compute_task.<task_name>.error from the conductor (e.g.
    build_instances on NoValidHost). ``tb`` is the formatted traceback
    (Nova passes ``traceback.format_exc()``)."""
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import compute_task
    payload = compute_task.ComputeTaskPayload(
        context=context, instance_uuid=instance_uuid,
        request_spec=request_spec, state=state, reason=exception,
        traceback_text=tb)
    _notification(compute_task.ComputeTaskNotification,
                  nf.NotificationPriority.ERROR, host, SOURCE_CONDUCTOR,
                  'compute_task', task_name, nf.NotificationPhase.ERROR,
                  payload).emit(context)


def notify_compute_task_failure(context, method, instance_uuid, request_spec,
                                vm_state, exc, tb=None, host=None):
    """Legacy ``compute_task.<method>`` and versioned
    ``compute_task.<method>.error`` for an instance the conductor gave up
    on (e.g. build_instances / NoValidHost)."""
    legacy.notify_compute_task(context, method, instance_uuid, request_spec,
                               vm_state, exc, host=host)
    notify_about_compute_task_error(context, method, instance_uuid,
                                    request_spec, vm_state, exc, tb=tb,
                                    host=host)


# Delete types that also have versioned notifications (force_delete and
# the like only have legacy ones, as in Nova).
_VERSIONED_DELETE_TYPES = ('delete', 'soft_delete')


def notify_about_instance_delete(*args, **kwargs):
    """Wrap a delete: ``compute.instance.<type>.start`` and
    ``instance.<type>.start`` before, the ``.end`` pair after (also when the
    block raises, as Nova)::

        with notify_about_instance_delete(context, instance,
                                          delete_type='delete',
                                          source=SOURCE_API, host=None):
            ...

    Nova's form with a notifier first (``(notifier, context, instance,
    ...)``) is accepted too; the notifier is not needed."""
    if args and not hasattr(args[0], 'to_dict'):
        args = args[1:]
    return _instance_delete(*args, **kwargs)


@contextlib.contextmanager
def _instance_delete(context, instance, delete_type='delete',
                     source=SOURCE_API, host=None, service='compute'):
    host = host or CONF.host
    versioned = delete_type in _VERSIONED_DELETE_TYPES

    def send(phase):
        notify_about_instance_usage(context, instance,
                                    '%s.%s' % (delete_type, phase),
                                    host=host, service=service)
        if versioned:
            notify_about_instance_action(
                context, instance, host=host, source=source,
                action=delete_type, phase=phase)

    send(nf.NotificationPhase.START)
    try:
        yield
    except BaseException:
        # The end pair still goes out, but a failure to send it must not
        # hide why the delete failed.
        try:
            send(nf.NotificationPhase.END)
        except Exception:  # noqa: BLE001 - see above
            LOG.exception("Failed to send %s.end for %s", delete_type,
                          instance.uuid)
        raise
    send(nf.NotificationPhase.END)


def _source_for_service(service):
    return service if service.startswith('nova-') else 'nova-' + service


def send_update(context, old_instance, new_instance, service='compute',
                host=None):
    """instance.update / compute.instance.update after a change, as Nova's
    notifications.send_update: with the old and new states when the
    vm_state (or, with ``vm_and_task_state``, the task_state) changed,
    else a plain update (with ``old_display_name`` on a rename)."""
    mode = notifications.state_change_mode()
    if not mode:
        return
    old_vm, new_vm = old_instance['vm_state'], new_instance['vm_state']
    old_task, new_task = old_instance['task_state'], new_instance['task_state']
    if old_vm != new_vm or (mode == 'vm_and_task_state' and
                            old_task != new_task):
        send_update_with_states(context, new_instance, old_vm, new_vm,
                                old_task, new_task, service, host)
        return
    old_name = None
    if new_instance['display_name'] != old_instance['display_name']:
        old_name = old_instance['display_name']
    _send_instance_update(context, new_instance, service=service, host=host,
                          old_display_name=old_name)


def send_update_with_states(context, instance, old_vm_state, new_vm_state,
                            old_task_state, new_task_state,
                            service='compute', host=None,
                            verify_states=False):
    mode = notifications.state_change_mode()
    if not mode:
        return
    if verify_states and not (
            old_vm_state != new_vm_state or
            (mode == 'vm_and_task_state' and
             old_task_state != new_task_state)):
        return
    _send_instance_update(context, instance, old_vm_state=old_vm_state,
                          old_task_state=old_task_state,
                          new_vm_state=new_vm_state,
                          new_task_state=new_task_state, service=service,
                          host=host)


def _send_instance_update(context, instance, old_vm_state=None,
                          old_task_state=None, new_vm_state=None,
                          new_task_state=None, service='compute', host=None,
                          old_display_name=None):
    # A failed notification never fails the state change it reports.
    try:
        states = legacy._states(instance, old_vm_state, old_task_state,
                                new_vm_state, new_task_state)
        start, end = audit.audit_period_bounds(current_period=True)
        if notifications.legacy_enabled():
            payload = legacy.instance_update_payload(
                context, instance, states, old_display_name, start, end)
            notifications.get_notifier(service, host).info(
                context, 'compute.instance.update', payload)
        if notifications.versioned_enabled():
            _send_versioned_update(context, instance, states, start, end,
                                   old_display_name, service, host)
    except keel_exc.InstanceNotFound:
        LOG.debug("instance %s gone before its update notification",
                  instance.uuid)
    except Exception:  # noqa: BLE001 - see above
        LOG.exception("Failed to send state update notification for %s",
                      instance.uuid)


def _send_versioned_update(context, instance, states, start, end,
                           old_display_name, service, host):
    from keel.notifications.objects import common
    from keel.notifications.objects import instance as inst_obj
    payload = inst_obj.InstanceUpdatePayload(
        context=context, instance=instance,
        state_update=common.InstanceStateUpdatePayload(**states),
        audit_period=common.AuditPeriodPayload(
            audit_period_beginning=start, audit_period_ending=end),
        old_display_name=old_display_name)
    _notification(inst_obj.InstanceUpdateNotification,
                  nf.NotificationPriority.INFO, host,
                  _source_for_service(service), 'instance',
                  nf.NotificationAction.UPDATE, None, payload).emit(context)
