"""``@wrap_exception(service, binary)``: a failing RPC endpoint method
reports its exception on the bus (Nova's exception_wrapper), then re-raises:

* legacy: event type = the method's name, ERROR, publisher
  ``<service>.<host>``, payload ``{'exception': ..., 'args': {...}}`` (the
  call's arguments without self/context, password-like ones left out);
* versioned: ``compute.exception`` with an ExceptionPayload, publisher
  ``<binary>:<host>``.

The wrapped method must take ``(self, context, ...)``. Costs one flag read
when notifications are off.
"""
import functools
import inspect
import logging

from keel.conf import CONF
from keel import notifications
from keel.notifications import base
from keel.notifications import fields as nf
from keel.objects import fields

LOG = logging.getLogger(__name__)


@base.notification
class ExceptionNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('ExceptionPayload')}


def _call_dict(func, self, context, args, kwargs):
    try:
        call = inspect.getcallargs(inspect.unwrap(func), self, context,
                                   *args, **kwargs)
    except TypeError:
        return {}
    call.pop('self', None)
    call.pop('context', None)
    # Nova leaves out anything that looks like a password.
    return {k: v for k, v in call.items() if '_pass' not in k}


def _notify(context, exc, service, binary, func, self, args, kwargs):
    if notifications.legacy_enabled():
        payload = {'exception': exc,
                   'args': _call_dict(func, self, context, args, kwargs)}
        notifications.get_notifier(service).error(context, func.__name__,
                                                  payload)
    if notifications.versioned_enabled():
        from keel.notifications.objects import common
        ExceptionNotification(
            priority=nf.NotificationPriority.ERROR,
            publisher=base.NotificationPublisher(host=CONF.host,
                                                 source=binary),
            event_type=base.EventType(object='compute',
                                      action=nf.NotificationAction.EXCEPTION),
            payload=common.ExceptionPayload.from_exception(exc),
        ).emit(context)


def wrap_exception(service='compute', binary=nf.NotificationSource.COMPUTE):
    def decorator(func):
        @functools.wraps(func)
        def wrapped(self, context, *args, **kwargs):
            try:
                return func(self, context, *args, **kwargs)
            except Exception as exc:
                if notifications.notifications_enabled():
                    try:
                        _notify(context, exc, service, binary, func, self,
                                args, kwargs)
                    except Exception:  # noqa: BLE001 - keep the original
                        LOG.exception("Could not notify about %s",
                                      func.__name__)
                raise
        return wrapped
    return decorator
