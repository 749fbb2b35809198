"""The database servicegroup driver (Nova's only one since Zed).

A service is *up* when its last heartbeat (``last_seen_up``, or
``created_at`` before the first one) is at most ``service_down_time`` seconds
old and it is not ``forced_down``. Heartbeats bump ``report_count`` through
the Service object, so on a compute host the write goes via the conductor.
"""
import datetime
import random
import threading

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from keel.conf import CONF
from keel import exception

LOG = logging.getLogger(__name__)

# Written into last_seen_up by a clean stop: the record then reads as down at
# once, so a restart of the same host is not refused (see keel.service).
STOPPED_MARK = datetime.datetime(1970, 1, 1)


def _get(ref, name):
    if isinstance(ref, dict):
        return ref.get(name)
    if hasattr(ref, "obj_attr_is_set") and not ref.obj_attr_is_set(name):
        return None
    return getattr(ref, name, None)


def last_heartbeat(service_ref):
    value = _get(service_ref, "last_seen_up") or _get(service_ref,
                                                      "created_at")
    if isinstance(value, str):
        value = timeutils.parse_strtime(value)
    if value is not None and value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return value


def heartbeat_age(service_ref):
    """Seconds since the last heartbeat (None: never seen)."""
    value = last_heartbeat(service_ref)
    if value is None:
        return None
    return timeutils.delta_seconds(value, timeutils.utcnow())


class API:
    """Join a service to the heartbeat loop; answer whether one is up."""

    def __init__(self, service_down_time=None):
        self.service_down_time = service_down_time

    def _down_time(self):
        return self.service_down_time or CONF.service_down_time

    def is_up(self, service_ref):
        if _get(service_ref, "forced_down"):
            return False
        age = heartbeat_age(service_ref)
        if age is None:
            return False
        up = abs(age) <= self._down_time()
        if not up:
            LOG.debug("Service %s on host %s is down: last heartbeat %.0f s "
                      "ago", _get(service_ref, "binary"),
                      _get(service_ref, "host"), age)
        return up

    service_is_up = is_up

    def join(self, service):
        """Start heartbeating ``service`` (a keel.service.Service)."""
        if not service.report_interval:
            return None
        heartbeat = Heartbeat(service, service.report_interval)
        heartbeat.start()
        return heartbeat


class Heartbeat:
    """A thread that saves ``report_count + 1`` every ``interval`` seconds."""

    def __init__(self, service, interval):
        self.service = service
        self.interval = interval
        self.disconnected = False
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, daemon=True,
            name=f"heartbeat-{service.binary}-{service.host}")

    def start(self):
        self._thread.start()

    def stop(self, timeout=None):
        self._stop.set()
        if self._thread.is_alive() and \
                self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self):
        # The first beat at a random point of the first period: services
        # started together (a compute process with many hosts, a restart
        # of every node) would otherwise beat in step for ever, a burst of
        # concurrent saves that outgrows the conductor's connection pool
        # (each extra connection is opened and closed again) every period.
        # The start itself counted as a beat, so no gap exceeds a period.
        # A worker taking over from a dead primary beats at once instead:
        # its launcher's start-up beat may be long gone.
        first = (0 if getattr(self.service, "beat_at_start", False)
                 else random.uniform(0, self.interval))
        if self._stop.wait(first):
            return
        self.report_state()
        while not self._stop.wait(self.interval):
            self.report_state()

    def report_state(self):
        ref = self.service.service_ref
        try:
            ref.report_count += 1
            # Nova's database layer stamps last_seen_up when report_count
            # grows; stamping it here gives the same record whichever
            # object layer saves it.
            ref.last_seen_up = timeutils.utcnow()
            ref.save()
            if self.disconnected:
                self.disconnected = False
                LOG.info("Recovered from being unable to report status.")
        except messaging.MessagingTimeout:
            if not self.disconnected:
                self.disconnected = True
                LOG.warning("Lost connection to nova-conductor for "
                            "reporting service status.")
        except exception.ServiceNotFound:
            if self._reattach(ref):
                return
            LOG.error("The services table record for the %s service on host "
                      "%s is gone. Stop this service if it was deleted, or "
                      "restart it to recreate the record.",
                      ref.binary, ref.host)
            self.disconnected = True
        except Exception:  # noqa: BLE001 - keep beating after any fault
            LOG.exception("Unexpected error while reporting service status")
            self.disconnected = True

    def _reattach(self, ref):
        """Follow our record when its id is not the one we hold.

        A record deleted by an operator stays deleted (Nova never recreates
        it behind their back), but a live row for our host and binary under
        another id is ours: beat on that one instead of failing forever.
        """
        from keel import objects
        try:
            current = objects.Service.get_by_host_and_binary(
                ref._context, ref.host, ref.binary)
        except Exception:  # noqa: BLE001 - the next beat tries again
            LOG.debug("Could not look the service record up again",
                      exc_info=True)
            return False
        if current is None or current.id == ref.id:
            return False
        LOG.warning("Service record of %s on %s has id %s, not %s; "
                    "reporting on it from now on.", ref.binary, ref.host,
                    current.id, ref.id)
        self.service.service_ref = current
        self.disconnected = False
        return True
