"""Cheaper idle polling of oslo.messaging's AMQP consumers.

oslo.messaging's RPC listeners and its ReplyWaiter (the thread receiving the
answers to this process's calls) poll their queues with a timeout that
restarts at 1 ms after every message and doubles up to 5 s. The short
timeouts are for acknowledgements and requeues that worker threads queue
for the consumer thread (notification listeners); an RPC listener
acknowledges each request inline in its consumer callback, and so does the
reply waiter, so their early wake-ups find nothing to do. Each one still
costs a trip through kombu's retry wrapper, a socket timeout and an
exception (about 0.15 ms of CPU): a process making a call every few
milliseconds paid four or five per reply, and a listener a dozen after
every request. In a compute running 50 hosts that was a quarter of its CPU.

``install()`` makes both block for the ramp's ceiling (5 s) at a time. A
message is still handled the moment it arrives (the socket read returns as
soon as a frame is there); idle wake-ups, heartbeat checks and the time a
``stop()`` waits are those of the ceiling, as before. Notification
listeners keep the ramp. Nothing on the wire changes.
"""
from oslo_log import log as logging
from oslo_messaging._drivers import amqpdriver
from oslo_messaging._drivers import common as rpc_common

LOG = logging.getLogger(__name__)

# The ceiling of oslo.messaging's own ramp: the longest it ever waited.
POLL_SECONDS = amqpdriver.ACK_REQUEUE_EVERY_SECONDS_MAX

_saved = {}


def _reply_poll(self):
    """ReplyWaiter.poll with a constant timeout (see the module doc)."""
    while not self._thread_exit_event.is_set():
        try:
            self.conn.consume(timeout=POLL_SECONDS)
        except rpc_common.Timeout:
            pass
        except Exception:  # noqa: BLE001 - as oslo.messaging's own loop
            LOG.exception("Failed to process incoming message, retrying..")


# AMQPListener.poll reads and resets ``_current_timeout``; on the RPC
# listener it reads as the ceiling whatever the poll loop assigns.
_constant_timeout = property(lambda self: POLL_SECONDS,
                             lambda self, value: None)


def _names(func):
    """Global and attribute names a function (or the function a decorator
    wrapped, found in its closure) uses."""
    names = set(getattr(getattr(func, "__code__", None), "co_names", ()))
    for cell in getattr(func, "__closure__", None) or ():
        inner = getattr(cell.cell_contents, "__code__", None)
        names.update(getattr(inner, "co_names", ()))
    return names


def _compatible():
    """The oslo.messaging code this module was written against: a reply
    waiter looping on conn.consume until _thread_exit_event, a listener
    keeping its timeout in _current_timeout. Anything else is left alone."""
    waiter = getattr(amqpdriver, "ReplyWaiter", None)
    listener = getattr(amqpdriver, "RpcAMQPListener", None)
    if waiter is None or listener is None:
        return False
    return ({"_thread_exit_event", "conn", "consume"} <= _names(waiter.poll)
            and "_current_timeout" in _names(listener.poll))


def install():
    """Patch oslo.messaging's classes (idempotent). A reply waiter started
    before keeps the ramp: call before the first RPC call."""
    if _saved or not _compatible():
        return
    _saved["poll"] = amqpdriver.ReplyWaiter.poll
    _saved["timeout"] = amqpdriver.RpcAMQPListener.__dict__.get(
        "_current_timeout")
    amqpdriver.ReplyWaiter.poll = _reply_poll
    amqpdriver.RpcAMQPListener._current_timeout = _constant_timeout


def uninstall():
    if not _saved:
        return
    amqpdriver.ReplyWaiter.poll = _saved.pop("poll")
    timeout = _saved.pop("timeout")
    if timeout is None:
        del amqpdriver.RpcAMQPListener._current_timeout
    else:
        amqpdriver.RpcAMQPListener._current_timeout = timeout
