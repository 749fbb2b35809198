"""The compute operations' notifications, through keel.notifications.

Legacy ``compute.instance.<suffix>`` and versioned
``instance.<action>.<phase>`` events. A notification is a side channel: a
failure to emit one is logged and never changes the outcome of the
operation that emitted it.
"""
from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def _helper(name):
    try:
        from keel.notifications import instance as notif_instance
    except ImportError:
        return None
    return getattr(notif_instance, name, None)


def warm_up():
    """Import the notification helpers now (a service's start) rather
    than in the first operation that emits one."""
    _helper("notify_about_instance_usage")


def _emit(name, *args, **kwargs):
    fn = _helper(name)
    if fn is None:
        return
    try:
        fn(*args, **kwargs)
    except Exception:  # noqa: BLE001 - side channel, see module doc
        LOG.exception("Could not emit notification %s", name)


def usage(context, instance, suffix, host, network_info=None,
          extra_usage_info=None, fault=None):
    """Legacy ``compute.instance.<suffix>``."""
    _emit("notify_about_instance_usage", context, instance, suffix,
          network_info=network_info, extra_usage_info=extra_usage_info,
          fault=fault, host=host)


def create(context, instance, host, phase, exception=None, bdms=None):
    """Versioned ``instance.create.<phase>``."""
    _emit("notify_about_instance_create", context, instance, host, phase,
          exception=exception, bdms=bdms)


def action(context, instance, host, action_name, phase, exception=None,
           bdms=None):
    """Versioned ``instance.<action>.<phase>``."""
    _emit("notify_about_instance_action", context, instance, host,
          action=action_name, phase=phase, exception=exception, bdms=bdms)


def both(context, instance, host, action_name, phase, exception=None,
         bdms=None, network_info=None):
    """Legacy ``<action>.<phase>`` and versioned ``instance.<action>.<phase>``
    (the pair most operations emit)."""
    usage(context, instance, "%s.%s" % (action_name, phase), host,
          network_info=network_info, fault=exception)
    action(context, instance, host, action_name, phase, exception=exception,
           bdms=bdms)
