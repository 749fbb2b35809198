"""Capture notifications in tests.

``NotificationCapture`` switches notifications on with oslo.messaging's
``test`` notification driver (the real Notifier, serializer and envelope;
the driver keeps the messages in memory instead of sending them) and sorts
what was sent into ``legacy`` and ``versioned`` lists of envelopes::

    {'event_type', 'priority', 'publisher_id', 'payload', 'context'}

Use it as a context manager, or through the ``notification_capture`` pytest
fixture (``from keel.notifications.testing import notification_capture``
in a conftest or test module). ``NotificationCapture(fmt='versioned')``
picks [notifications]/notification_format (default ``both``).
"""
import copy
import time

from oslo_messaging.notify import _impl_test
from oslo_serialization import jsonutils
import pytest

from keel.conf import CONF
from keel import notifications


def _is_versioned(payload):
    return isinstance(payload, dict) and 'nova_object.name' in payload


class NotificationCapture:
    def __init__(self, fmt='both', notify_on_state_change=None):
        self.fmt = fmt
        self.notify_on_state_change = notify_on_state_change

    def start(self):
        CONF.set_override('driver', ['test'],
                          group='oslo_messaging_notifications')
        CONF.set_override('notification_format', self.fmt,
                          group='notifications')
        if self.notify_on_state_change:
            CONF.set_override('notify_on_state_change',
                              self.notify_on_state_change,
                              group='notifications')
        notifications.reset()
        _impl_test.reset()
        return self

    def stop(self):
        CONF.clear_override('driver', group='oslo_messaging_notifications')
        CONF.clear_override('notification_format', group='notifications')
        CONF.clear_override('notify_on_state_change', group='notifications')
        notifications.reset()
        _impl_test.reset()

    __enter__ = start

    def __exit__(self, *exc):
        self.stop()

    def clear(self):
        _impl_test.reset()

    def _all(self):
        out = []
        for ctxt, message, priority, _retry in list(_impl_test.NOTIFICATIONS):
            envelope = {
                'event_type': message['event_type'],
                'priority': priority,
                'publisher_id': message['publisher_id'],
                # What a consumer decodes: the JSON of the payload.
                'payload': jsonutils.loads(jsonutils.dumps(
                    message['payload'])),
                'context': copy.deepcopy(ctxt),
            }
            out.append(envelope)
        return out

    @property
    def all(self):
        return self._all()

    @property
    def legacy(self):
        return [n for n in self._all() if not _is_versioned(n['payload'])]

    @property
    def versioned(self):
        return [n for n in self._all() if _is_versioned(n['payload'])]

    def event_types(self, versioned=True):
        return [n['event_type']
                for n in (self.versioned if versioned else self.legacy)]

    def wait_for(self, event_type, versioned=True, timeout=10.0, count=1):
        """The first ``count`` envelopes of ``event_type`` (services send
        from their own threads); AssertionError after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            found = [n for n in (self.versioned if versioned
                                 else self.legacy)
                     if n['event_type'] == event_type]
            if len(found) >= count:
                return found[:count] if count > 1 else found[0]
            if time.monotonic() > deadline:
                raise AssertionError(
                    '%s not sent; got %s' % (
                        event_type, self.event_types(versioned)))
            time.sleep(0.02)


@pytest.fixture
def notification_capture():
    capture = NotificationCapture()
    capture.start()
    try:
        yield capture
    finally:
        capture.stop()
