"""Instance action events: each compute step of a server action is logged
as an event (``compute_<method>``) of the action the API or the conductor
started under the same request id, with its result and, on error, the
traceback -- what ``GET /servers/{id}/os-instance-actions/{req}`` shows.
"""
import functools
import inspect

from oslo_log import log as logging

from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)


class EventReporter(object):
    """Start an event on enter, finish it (Success/Error) on exit.

    A missing action (a request id nobody logged, a periodic task) never
    breaks the operation itself: the event is simply not recorded.
    """

    def __init__(self, context, event_name, host, instance_uuid):
        self.context = context
        self.event_name = event_name
        self.host = host
        self.instance_uuid = instance_uuid
        self.started = False

    def __enter__(self):
        try:
            objects.InstanceActionEvent.event_start(
                self.context, self.instance_uuid, self.event_name,
                want_result=False, host=self.host)
            self.started = True
        except exception.InstanceActionNotFound:
            LOG.debug("No action for request %s on %s: event %s not logged",
                      self.context.request_id, self.instance_uuid,
                      self.event_name)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.started:
            return False
        try:
            objects.InstanceActionEvent.event_finish_with_failure(
                self.context, self.instance_uuid, self.event_name,
                exc_val=exc_val, exc_tb=exc_tb, want_result=False)
        except (exception.InstanceActionNotFound,
                exception.InstanceActionEventNotFound,
                exception.InstanceNotFound):
            LOG.debug("Event %s of %s vanished before it finished",
                      self.event_name, self.instance_uuid)
        except Exception:  # noqa: BLE001 - never mask the real outcome
            LOG.exception("Could not finish event %s of %s",
                          self.event_name, self.instance_uuid)
        return False


def _instance_position(function):
    """Index of ``instance`` in the positional arguments after (self,
    context); read once per method rather than on every call."""
    params = list(inspect.signature(function).parameters)
    if "instance" not in params:
        return None     # passed by keyword only
    return params.index("instance") - 2


def _instance_uuid(position, args, kwargs):
    instance = kwargs.get("instance")
    if instance is None:
        instance = args[position]
    return instance["uuid"] if isinstance(instance, dict) else instance.uuid


def wrap_instance_event(prefix):
    """Log the wrapped ``method(self, context, ..., instance, ...)`` as the
    event ``<prefix>_<method name>`` of the request's instance action."""

    def decorator(function):
        event_name = "%s_%s" % (prefix, function.__name__)
        position = _instance_position(function)

        @functools.wraps(function)
        def wrapped(self, context, *args, **kwargs):
            uuid = _instance_uuid(position, args, kwargs)
            with EventReporter(context, event_name,
                               getattr(self, "host", None), uuid):
                return function(self, context, *args, **kwargs)
        return wrapped
    return decorator
