"""A keel service process part: services-table record, RPC servers,
heartbeats, periodic tasks and graceful stop.

Start-up order follows Nova's: find or create the record (refusing a second
live process with the same host and binary -- one whose record goes on
heartbeating; a record left by a killed process is taken over),
``manager.init_host``, the RPC
server on ``topic`` (server = host) and, for computes, a second one on
``compute-alt``, then heartbeats and periodic tasks.

Stop (SIGTERM): stop consuming ``topic`` first, let the manager finish its
operations in flight while ``compute-alt`` still serves the calls those
operations need, then stop ``compute-alt``, the timers, and mark the record
stopped so an immediate restart is not mistaken for a duplicate.
"""
import datetime
import functools
import inspect
import random
import threading
import time

from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_utils import timeutils

from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel.rpc import serializer as rpc_serializer
from keel.rpc import transport as rpc_transport
from keel.rpc import versions
from keel import servicegroup

LOG = logging.getLogger(__name__)

# Attempts (oslo.messaging's own retry/back-off between them) at reaching the
# broker before a service gives up at start.
BROKER_START_RETRIES = 5


class StartupError(Exception):
    """A service cannot start; the message says why (no traceback needed)."""


class BaseRPCAPI:
    """Nova's ``baseapi`` namespace: every service answers ``ping``."""

    target = messaging.Target(namespace="baseapi", version="1.1")

    def __init__(self, service_name):
        self.service_name = service_name

    def ping(self, context, arg):
        return {"service": self.service_name, "arg": arg}

    def get_backdoor_port(self, context):
        return None


class _TrackedEndpoint:
    """Counts each RPC dispatched to ``endpoint`` as an operation in flight
    of ``manager``, so a graceful stop knows what it waits for."""

    def __init__(self, endpoint, manager):
        self._endpoint = endpoint
        self._manager = manager

    def __getattr__(self, name):
        attr = getattr(self._endpoint, name)
        if name.startswith("_") or not inspect.ismethod(attr):
            return attr

        @functools.wraps(attr)
        def tracked(ctxt, *args, **kwargs):
            instance = kwargs.get("instance")
            key = self._manager.record_task_start(
                name, getattr(instance, "uuid", None))
            try:
                return attr(ctxt, *args, **kwargs)
            finally:
                self._manager.record_task_end(key)

        setattr(self, name, tracked)
        return tracked


class Service:
    """One (host, binary) service: what ``keel conductor`` & co. run."""

    def __init__(self, host, binary, topic, manager, topic_alt=None,
                 report_interval=None, periodic_enable=None,
                 periodic_fuzzy_delay=None, periodic_interval_max=None,
                 servicegroup_api=None):
        self.host = host
        self.binary = binary
        self.topic = topic
        self.topic_alt = topic_alt
        self.manager = manager
        self.report_interval = (CONF.report_interval if report_interval is None
                                else report_interval)
        self.periodic_enable = (CONF.periodic_enable if periodic_enable is None
                                else periodic_enable)
        self.periodic_fuzzy_delay = (
            CONF.periodic_fuzzy_delay if periodic_fuzzy_delay is None
            else periodic_fuzzy_delay)
        self.periodic_interval_max = periodic_interval_max or 60
        self.servicegroup_api = servicegroup_api or servicegroup.API()
        self.service_ref = None
        self.rpcserver = None
        self.rpcserver_alt = None
        self._heartbeat = None
        self._periodic_stop = threading.Event()
        self._periodic_thread = None
        self._stopped = threading.Event()
        # A worker of keel.workers' launcher serves a record its parent
        # registered and will mark stopped; only the primary worker beats
        # and runs the periodic tasks (see adopt()).
        self._adopted_ref = None
        self.primary = True
        self.beat_at_start = False

    def adopt(self, service_ref, primary):
        """Serve as one worker of a launcher that registered ``service_ref``.

        The record is re-read (a restarted worker must not send an older
        report_count than its predecessor's). Heartbeats and periodic tasks
        run in the ``primary`` worker only, so N workers cost one heartbeat
        and one run of each periodic task, not N.
        """
        self._adopted_ref = service_ref
        self.primary = primary
        self.beat_at_start = True

    def __repr__(self):
        return f"<Service {self.binary} on {self.host}>"

    # -- start ---------------------------------------------------------------
    def start(self):
        ctxt = keel_context.get_admin_context()
        if self._adopted_ref is not None:
            self.service_ref = self._reload(ctxt, self._adopted_ref)
        else:
            self.service_ref = self._register(ctxt)
        try:
            self.manager.init_host(self.service_ref)
            self._start_rpc_servers()
            self.manager.post_start_hook()
        except BaseException:
            # Registered but not serving: leave the record stopped, or a
            # fixed restart would be refused as a duplicate of ourselves.
            self._stop_rpc_servers()
            self._mark_stopped()
            raise
        if self.primary:
            self._heartbeat = self.servicegroup_api.join(self)
        if self.periodic_enable and self.primary:
            self._periodic_thread = threading.Thread(
                target=self._run_periodic_tasks, daemon=True,
                name=f"periodic-{self.binary}-{self.host}")
            self._periodic_thread.start()
        LOG.info("%s started on host %s (topic %s%s, service version %d)",
                 self.binary, self.host, self.topic,
                 f" + {self.topic_alt}" if self.topic_alt else "",
                 versions.SERVICE_VERSION)

    def _reload(self, ctxt, ref):
        from keel import objects

        try:
            return objects.Service.get_by_id(ctxt, ref.id)
        except exception.ServiceNotFound:
            raise StartupError(
                f"the record of {self.binary} on host {self.host} was "
                f"deleted while its workers started; refusing to start.")

    def _register(self, ctxt):
        """Find or create our services row; refuse a live duplicate."""
        from keel import objects

        ref = objects.Service.get_by_host_and_binary(ctxt, self.host,
                                                     self.binary)
        if ref is not None:
            self._refuse_if_alive(ref)
            ref.version = versions.SERVICE_VERSION
            # A heartbeat now: the record reads as up from the first second.
            ref.report_count += 1
            ref.last_seen_up = timeutils.utcnow()
            ref.save()
            return ref
        ref = objects.Service(ctxt)
        ref.host = self.host
        ref.binary = self.binary
        ref.topic = self.topic
        ref.report_count = 0
        ref.version = versions.SERVICE_VERSION
        try:
            ref.create()
        except exception.ServiceBinaryExists:
            # Another process with our host and binary won the race.
            raise StartupError(
                f"{self.binary} on host {self.host} was registered by another "
                f"process starting at the same time; refusing to start.")
        return ref

    def _refuse_if_alive(self, ref):
        last = servicegroup.api.last_heartbeat(ref)
        if last == servicegroup.api.STOPPED_MARK:
            return
        if ref.obj_attr_is_set("forced_down") and ref.forced_down:
            return
        if not self.servicegroup_api.is_up(ref):
            return
        # Up by its last heartbeat: a live twin -- or a process that just
        # died (kill -9, a crash, a host reboot) whose record has not aged
        # out yet.  Watch for one more heartbeat instead of refusing for up
        # to service_down_time, so a supervisor's restart gets through.
        if self._heartbeats_again(ref):
            age = servicegroup.api.heartbeat_age(ref)
            raise StartupError(str(exception.ServiceAlreadyRunning(
                binary=self.binary, host=self.host,
                age=int(age) if age is not None else "?",
                down_time=CONF.service_down_time)))
        LOG.warning("The record of %s on %s was up but no heartbeat came "
                    "for %d s: its process is gone; taking it over.",
                    self.binary, self.host, self._watch_seconds())

    def _watch_seconds(self):
        # Two heartbeat periods of the other process (same configuration).
        return 2 * max(CONF.report_interval or 1, 1) + 1

    def _heartbeats_again(self, ref):
        from keel import objects

        seen = (ref.report_count, servicegroup.api.last_heartbeat(ref))
        deadline = timeutils.utcnow() + datetime.timedelta(
            seconds=self._watch_seconds())
        while timeutils.utcnow() < deadline:
            time.sleep(0.5)
            now = objects.Service.get_by_host_and_binary(
                ref._context, self.host, self.binary)
            if now is None:
                return False
            if (now.report_count, servicegroup.api.last_heartbeat(now)) \
                    != seen:
                return True
        return False

    def _start_rpc_servers(self):
        endpoints = [_TrackedEndpoint(self.manager, self.manager),
                     BaseRPCAPI(self.manager.service_name)]
        endpoints += [_TrackedEndpoint(e, self.manager)
                      for e in self.manager.additional_endpoints]
        serializer = rpc_serializer.object_serializer()
        self.rpcserver = rpc_transport.get_server(
            messaging.Target(topic=self.topic, server=self.host),
            endpoints, serializer)
        self.rpcserver.start()
        if self.topic_alt:
            self.rpcserver_alt = rpc_transport.get_server(
                messaging.Target(topic=self.topic_alt, server=self.host),
                endpoints, serializer)
            self.rpcserver_alt.start()

    def _stop_rpc_servers(self):
        for server in (self.rpcserver, self.rpcserver_alt):
            if server is None:
                continue
            try:
                server.stop()
                server.wait()
            except Exception:  # noqa: BLE001 - never started
                LOG.debug("RPC server stop failed", exc_info=True)

    def _run_periodic_tasks(self):
        delay = (random.randint(0, self.periodic_fuzzy_delay)
                 if self.periodic_fuzzy_delay else 0)
        if self._periodic_stop.wait(delay):
            return
        while not self._periodic_stop.is_set():
            ctxt = keel_context.get_admin_context()
            try:
                idle = self.manager.periodic_tasks(ctxt)
            except Exception:  # noqa: BLE001 - never kill the timer
                LOG.exception("Error running periodic tasks of %s",
                              self.binary)
                idle = self.periodic_interval_max
            idle = min(idle or self.periodic_interval_max,
                       self.periodic_interval_max)
            self._periodic_stop.wait(max(idle, 0.1))

    # -- stop ----------------------------------------------------------------
    def stop(self, graceful_timeout=None):
        """Finish in-flight work, then stop. Safe to call twice."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        timeout = (CONF.graceful_shutdown_timeout if graceful_timeout is None
                   else graceful_timeout)
        LOG.info("%s on %s: graceful shutdown started", self.binary,
                 self.host)
        self.manager.set_shutdown_in_progress()
        if self.rpcserver is not None:
            self.rpcserver.stop()           # no new work from `topic`
        if not self.manager.wait_for_tasks(timeout or None):
            LOG.warning("%s on %s: operations still running after %s s: %s",
                        self.binary, self.host, timeout,
                        self.manager.tasks_in_progress())
        if self.rpcserver is not None:
            self.rpcserver.wait()
        if self.rpcserver_alt is not None:
            self.rpcserver_alt.stop()
            self.rpcserver_alt.wait()
        self._periodic_stop.set()
        if self._periodic_thread is not None:
            self._periodic_thread.join(30)
        if self._heartbeat is not None:
            self._heartbeat.stop(30)
        self._mark_stopped()
        try:
            self.manager.cleanup_host()
        except Exception:  # noqa: BLE001
            LOG.exception("cleanup_host failed for %s", self.binary)
        LOG.info("%s on %s: graceful shutdown finished", self.binary,
                 self.host)

    def _mark_stopped(self):
        if self.service_ref is None or self._adopted_ref is not None:
            # A worker's record is the launcher's to mark.
            return
        try:
            self.service_ref.last_seen_up = servicegroup.api.STOPPED_MARK
            self.service_ref.save()
        except Exception as exc:  # noqa: BLE001 - the record just ages out
            LOG.warning("Could not mark %s on %s stopped (%s); a restart "
                        "within service_down_time will be refused.",
                        self.binary, self.host, exc)


def check_broker(retries=None):
    """Reach the default broker once, with bounded retries.

    A publish with ``retry`` set is the one oslo.messaging operation that
    gives up after a number of attempts (its servers reconnect forever), so
    it tells at start whether the broker is there. Nothing consumes the
    probe topic; the broker drops the message.
    """
    if retries is None:
        retries = BROKER_START_RETRIES
    client = rpc_transport.get_client(messaging.Target(topic="keel-probe"))
    try:
        client.prepare(retry=retries).cast(
            keel_context.get_admin_context(), "ping")
    except Exception as exc:  # noqa: BLE001 - kombu/amqp errors leak too
        raise StartupError(
            f"message broker at {_safe_url(CONF.transport_url)} unreachable "
            f"after {retries} attempts: {exc}")


def _safe_url(url):
    try:
        parsed = messaging.TransportURL.parse(CONF, url)
    except Exception:  # noqa: BLE001
        return "(unparsable transport_url)"
    hosts = ",".join(f"{h.hostname}:{h.port}" for h in parsed.hosts)
    return f"{parsed.transport}://{hosts}"


class Launcher:
    """Runs services until SIGTERM/SIGINT, then stops them in parallel."""

    def __init__(self, services, parent_pid=None):
        self.services = list(services)
        self._stop = threading.Event()
        # A launcher worker stops when the process that forked it is gone
        # (it no longer has anyone to restart it or mark its record).
        self.parent_pid = parent_pid

    def start(self):
        started = []
        try:
            for svc in self.services:
                svc.start()
                started.append(svc)
        except BaseException:
            self._stop_all(started)
            raise

    def request_stop(self, *_args):
        self._stop.set()

    def install_signal_handlers(self):
        import signal
        signal.signal(signal.SIGTERM, self.request_stop)
        signal.signal(signal.SIGINT, self.request_stop)

    def wait(self):
        import os

        while not self._stop.wait(1):
            if self.parent_pid and os.getppid() != self.parent_pid:
                LOG.warning("The launcher of this worker (pid %d) is gone; "
                            "stopping.", self.parent_pid)
                break
        self._stop_all(self.services)

    def stop(self):
        """Stop every service now (in parallel), finishing in-flight work."""
        self._stop_all(self.services)

    def _stop_all(self, services):
        threads = [threading.Thread(target=s.stop, name=f"stop-{s.host}")
                   for s in services]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def serve(services, before_start=None, parent_pid=None):
    """Run ``services`` until SIGTERM/SIGINT; the exit code of the command.

    Start-up faults (database or broker unreachable after their retries, a
    live duplicate, ...) end with one clear line on stderr and exit 1.
    ``parent_pid``: run as a worker of keel.workers' launcher (stop when
    that process is gone).
    """
    launcher = Launcher(services, parent_pid=parent_pid)
    code = guarded_start(lambda: _start(launcher, before_start))
    if code:
        return code
    from keel import gctune
    gctune.settle()
    try:
        launcher.wait()
    finally:
        close_transports()
    return 0


# How long a stopping process waits for its broker connections to close.
TRANSPORT_CLOSE_SECONDS = 10


def close_transports(timeout=None):
    """Close the messaging connections, but never hang on them: with the
    broker unreachable, oslo.messaging's close joins a heartbeat thread that
    keeps retrying the connection for ever. A stopping process (its work
    already finished) then exits without them -- an orphaned worker would
    otherwise stay behind for good."""
    timeout = TRANSPORT_CLOSE_SECONDS if timeout is None else timeout
    closer = threading.Thread(target=rpc_transport.cleanup, daemon=True,
                              name="transport-cleanup")
    closer.start()
    closer.join(timeout)
    if closer.is_alive():
        LOG.warning("Messaging connections did not close within %d s (is "
                    "the broker reachable?); exiting without them.",
                    timeout)
        return False
    return True


def _start(launcher, before_start):
    rpc_transport.init()
    check_broker()
    if before_start is not None:
        before_start()
    launcher.install_signal_handlers()
    launcher.start()


def guarded_start(start):
    """Run ``start()``; 0, or 1 after one clear line for a start-up fault."""
    import sys

    from oslo_db import exception as db_exc

    try:
        start()
    except StartupError as exc:
        return _fail(sys, str(exc))
    except db_exc.DBConnectionError as exc:
        return _fail(sys, f"database unreachable: {exc}")
    except db_exc.DBError as exc:
        return _fail(sys, f"database error: {exc}")
    except messaging.MessagingTimeout as exc:
        return _fail(sys, f"no answer over RPC (is nova-conductor "
                          f"running?): {exc}")
    except messaging.MessagingException as exc:
        return _fail(sys, f"message broker error: {exc}")
    return 0


def _fail(sys, message):
    LOG.error("Start-up failed: %s", message)
    sys.stderr.write(f"keel: cannot start: {message}\n")
    try:
        rpc_transport.cleanup()
    except Exception:  # noqa: BLE001
        pass
    return 1
