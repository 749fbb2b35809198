"""Instance faults: what the API shows as a server's ``fault``.

The message is what a user may see, so it comes only from keel's own
exceptions (their formatted message); any other exception is named by its
class only, because its text may carry internals. The traceback goes to
``details`` only for 500-class faults, as Nova does.
"""
import functools
import inspect
import sys
import traceback

from oslo_log import log as logging

from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

_MESSAGE_LEN = 255


def exception_to_dict(fault, message=None):
    """``{"code", "message"}`` of an exception as Nova records it."""
    code = 500
    if isinstance(getattr(fault, "kwargs", None), dict):
        code = fault.kwargs.get("code", 500)
    if not message:
        try:
            message = fault.format_message()
        except Exception:  # noqa: BLE001 - not ours, or unformattable
            message = fault.__class__.__name__
    return {"code": code, "message": str(message)[:_MESSAGE_LEN]}


def _details(exc_info, code):
    if not exc_info or code != 500:
        return ""
    return "".join(traceback.format_exception(*exc_info))


def add_instance_fault_from_exc(context, instance, fault, exc_info=None,
                                fault_message=None, host=None):
    """Record ``fault`` against ``instance`` (a row in instance_faults)."""
    from keel.conf import CONF
    values = exception_to_dict(fault, message=fault_message)
    record = objects.InstanceFault(context=context)
    record.host = host or CONF.host
    record.instance_uuid = instance.uuid
    record.code = values["code"]
    record.message = values["message"]
    record.details = _details(exc_info, values["code"])
    record.create()
    return record


def _instance_arg(function, self, context, args, kwargs):
    if "instance" in kwargs:
        return kwargs["instance"]
    params = list(inspect.signature(function).parameters)
    # (self, context, instance, ...) is the RPC method convention.
    idx = params.index("instance") - 2 if "instance" in params else 0
    return args[idx] if len(args) > idx else None


def wrap_instance_fault(function):
    """Record a fault for any error of the wrapped RPC method, then let it
    propagate (an instance that is gone gets none: there is no row)."""

    @functools.wraps(function)
    def wrapped(self, context, *args, **kwargs):
        try:
            return function(self, context, *args, **kwargs)
        except exception.InstanceNotFound:
            raise
        except Exception as exc:
            exc_info = sys.exc_info()
            instance = _instance_arg(function, self, context, args, kwargs)
            if instance is not None:
                try:
                    add_instance_fault_from_exc(
                        context, instance, exc, exc_info,
                        host=getattr(self, "host", None))
                except exception.InstanceNotFound:
                    pass
                except Exception:  # noqa: BLE001 - keep the first error
                    LOG.exception("Could not record a fault for %s",
                                  instance.uuid)
            raise
    return wrapped


def reverts_task_state(function):
    """On failure clear the task_state the API set for the wrapped RPC
    method, so the instance accepts new actions; a preempted task
    (UnexpectedTaskStateError) keeps the state its new owner set."""

    @functools.wraps(function)
    def wrapped(self, context, *args, **kwargs):
        try:
            return function(self, context, *args, **kwargs)
        except exception.UnexpectedTaskStateError as exc:
            LOG.info("Task possibly preempted: %s", exc.format_message())
            raise
        except Exception:
            instance = _instance_arg(function, self, context, args, kwargs)
            if instance is not None:
                _revert_task_state(instance)
            raise
    return wrapped


def _revert_task_state(instance):
    original = instance.task_state
    instance.task_state = None
    try:
        instance.save()
        LOG.info("Successfully reverted task state from %s on failure for "
                 "instance %s", original, instance.uuid)
    except exception.InstanceNotFound:
        pass
    except Exception as exc:  # noqa: BLE001 - keep the first error
        LOG.warning("Failed to revert task state of %s: %s", instance.uuid,
                    exc)
