"""keel.service: registration, heartbeats, liveness, duplicate refusal,
graceful stop with compute-alt, periodic tasks, start-up failures.

Real parts: a SQLite cell database made from the models, oslo.messaging's
in-process bus, the real Service/Manager classes and threads.
"""
import datetime
import threading
import time

import oslo_messaging as messaging
from oslo_utils import timeutils
import pytest

from keel.conf import CONF
from keel.conf import defaults
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import manager
from keel import objects
from keel.rpc import transport as rpc_transport
from keel.rpc import versions
from keel import service
from keel import servicegroup

objects.register_all()


@pytest.fixture
def env(tmp_path):
    defaults.set_library_defaults(CONF)
    CONF.set_override("connection", f"sqlite:///{tmp_path}/api.sqlite",
                      group="api_database")
    CONF.set_override("connection", f"sqlite:///{tmp_path}/cell.sqlite",
                      group="database")
    CONF.set_override("transport_url", "fake:/")
    CONF.set_override("service_down_time", 3)
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    cell_models.Base.metadata.create_all(session.cell_engine())
    rpc_transport.cleanup()
    rpc_transport.init()
    started = []
    yield started
    for svc in started:
        svc.stop(graceful_timeout=5)
    rpc_transport.cleanup()
    session.reset()
    for opt in ("transport_url", "service_down_time"):
        CONF.clear_override(opt)
    CONF.clear_override("connection", group="api_database")
    CONF.clear_override("connection", group="database")


class SlowManager(manager.Manager):
    """A manager with one slow and one quick RPC method and a periodic
    task, to watch what a service does with them."""

    target = messaging.Target(version="1.0")
    service_name = "slow"

    def __init__(self, host):
        super().__init__(host=host, service_name="slow")
        self.started_slow = threading.Event()
        self.periodic_runs = 0

    def slow(self, context, seconds):
        self.started_slow.set()
        time.sleep(seconds)
        return "done"

    def quick(self, context):
        return "quick"

    @manager.periodic(spacing=0.2, run_immediately=True)
    def _count(self, context):
        self.periodic_runs += 1


def _service(env, host="h1", binary="nova-compute", topic="slowtopic",
             topic_alt="slowtopic-alt", report_interval=1, start=True):
    svc = service.Service(host=host, binary=binary, topic=topic,
                          topic_alt=topic_alt, manager=SlowManager(host),
                          report_interval=report_interval,
                          periodic_enable=True, periodic_fuzzy_delay=0,
                          periodic_interval_max=1)
    if start:
        svc.start()
        env.append(svc)
    return svc


def _record(host="h1", binary="nova-compute"):
    return objects.Service.get_by_host_and_binary(
        keel_context.get_admin_context(), host, binary)


def _client(topic, host="h1"):
    return rpc_transport.get_client(
        messaging.Target(topic=topic, server=host, version="1.0"))


def test_start_registers_and_heartbeats(env):
    _service(env)
    first = _record()
    assert (first.host, first.binary, first.topic) == \
        ("h1", "nova-compute", "slowtopic")
    assert first.version == versions.SERVICE_VERSION
    assert servicegroup.API().is_up(first)
    time.sleep(2.3)
    later = _record()
    assert later.report_count >= first.report_count + 2
    assert servicegroup.api.heartbeat_age(later) < 1.5
    time.sleep(1.2)
    assert _record().last_seen_up > later.last_seen_up


def test_is_up_honours_down_time_and_forced_down():
    api = servicegroup.API(service_down_time=60)
    now = timeutils.utcnow()
    assert api.is_up({"last_seen_up": now, "forced_down": False})
    assert not api.is_up({"last_seen_up": now, "forced_down": True})
    old = now - datetime.timedelta(seconds=61)
    assert not api.is_up({"last_seen_up": old})
    # Before the first heartbeat the creation time counts.
    assert api.is_up({"last_seen_up": None, "created_at": now})
    assert not api.is_up({"last_seen_up": None, "created_at": old})


def test_live_duplicate_is_refused_and_clean_stop_allows_restart(env):
    first = _service(env)
    dup = _service(env, start=False)
    with pytest.raises(service.StartupError) as err:
        dup.start()
    message = str(err.value)
    assert "nova-compute" in message and "h1" in message
    assert "already running" in message
    first.stop(graceful_timeout=5)
    assert not servicegroup.API().is_up(_record())     # down at once
    again = _service(env)                               # immediate restart
    assert servicegroup.API().is_up(_record())
    assert again.service_ref.id == first.service_ref.id


def test_record_of_a_killed_process_is_taken_over_without_waiting(env):
    # A process killed with SIGKILL leaves a record that still reads as
    # up; the restart watches for a heartbeat, sees none, and starts
    # (instead of refusing until service_down_time has passed).
    CONF.set_override("report_interval", 1)
    try:
        killed = _service(env, report_interval=60)   # beats once, at start
        killed._heartbeat.stop()
        assert servicegroup.API().is_up(_record())
        started = time.monotonic()
        again = _service(env, start=False)
        again.start()
        env.append(again)
        assert time.monotonic() - started < 10
        assert again.service_ref.id == killed.service_ref.id
    finally:
        CONF.clear_override("report_interval")


def test_service_without_heartbeat_goes_down(env):
    svc = _service(env, report_interval=0)              # never beats
    assert servicegroup.API().is_up(_record())
    time.sleep(3.5)
    assert not servicegroup.API().is_up(_record())
    svc.stop(graceful_timeout=5)


def test_rpc_and_baseapi_ping(env):
    _service(env)
    ctxt = keel_context.get_admin_context()
    assert _client("slowtopic").call(ctxt, "quick") == "quick"
    assert _client("slowtopic-alt").call(ctxt, "quick") == "quick"
    ping = rpc_transport.get_client(messaging.Target(
        topic="slowtopic", server="h1", namespace="baseapi", version="1.0"))
    assert ping.call(ctxt, "ping", arg="x") == {"service": "slow",
                                                "arg": "x"}


def test_periodic_tasks_run(env):
    svc = _service(env)
    time.sleep(1)
    assert svc.manager.periodic_runs >= 2


def test_sigterm_finishes_in_flight_work_and_keeps_alt_until_then(env):
    svc = _service(env)
    ctxt = keel_context.get_admin_context()
    result = {}

    def slow_call():
        result["slow"] = _client("slowtopic").prepare(timeout=20).call(
            ctxt, "slow", seconds=2)
    caller = threading.Thread(target=slow_call)
    caller.start()
    assert svc.manager.started_slow.wait(5)
    stopper = threading.Thread(target=svc.stop, kwargs={
        "graceful_timeout": 20})
    stopper.start()
    time.sleep(0.3)
    # Stopping: the main topic takes no new work ...
    with pytest.raises(messaging.MessagingTimeout):
        _client("slowtopic").prepare(timeout=0.5).call(ctxt, "quick")
    # ... while compute-alt still serves the running operation's peers.
    assert _client("slowtopic-alt").prepare(timeout=5).call(
        ctxt, "quick") == "quick"
    caller.join(10)
    stopper.join(20)
    assert result == {"slow": "done"}                   # finished, not cut
    assert not stopper.is_alive()
    with pytest.raises(messaging.MessagingTimeout):
        _client("slowtopic-alt").prepare(timeout=0.5).call(ctxt, "quick")
    assert not servicegroup.API().is_up(_record())


def test_unreachable_broker_fails_start_with_a_message(env, monkeypatch,
                                                       capsys):
    rpc_transport.cleanup()
    CONF.set_override("transport_url",
                      "rabbit://guest:guest@127.0.0.1:1/")
    monkeypatch.setattr(service, "BROKER_START_RETRIES", 1)
    svc = _service(env, start=False)
    started = time.monotonic()
    assert service.serve([svc]) == 1
    assert time.monotonic() - started < 30
    err = capsys.readouterr().err
    assert "cannot start" in err and "127.0.0.1:1" in err
    assert "Traceback" not in err
    assert _record() is None                            # never registered


def test_failed_start_leaves_the_record_stopped(env):
    svc = _service(env, start=False)

    def broken_init_host(service_ref=None):
        raise RuntimeError("driver cannot reach its hypervisor")
    svc.manager.init_host = broken_init_host
    with pytest.raises(RuntimeError):
        svc.start()
    assert not servicegroup.API().is_up(_record())
    _service(env)                                       # a fixed restart


def test_unreachable_database_fails_start_with_a_message(env, capsys):
    CONF.set_override("connection", "mysql+pymysql://root@127.0.0.1:1/nope",
                      group="database")
    CONF.set_override("max_retries", 2, group="database")
    CONF.set_override("retry_interval", 1, group="database")
    session.reset()
    try:
        svc = _service(env, start=False)
        assert service.serve([svc]) == 1
    finally:
        CONF.clear_override("max_retries", group="database")
        CONF.clear_override("retry_interval", group="database")
    err = capsys.readouterr().err
    assert "cannot start: database unreachable" in err
    assert "Traceback" not in err


def test_heartbeat_follows_its_record_when_the_id_is_stale(env):
    svc = _service(env, report_interval=60)
    stale = objects.Service.get_by_host_and_binary(
        keel_context.get_admin_context(), "h1", "nova-compute")
    real_id = stale.id
    stale.id = real_id + 1000          # an id that has no row
    stale.obj_reset_changes(["id"])
    svc.service_ref = stale
    beat = svc._heartbeat
    before = _record().report_count
    beat.report_state()                # finds the live row again
    assert svc.service_ref.id == real_id
    beat.report_state()                # and beats on it
    assert _record().report_count == before + 1


def test_heartbeat_does_not_recreate_a_deleted_record(env):
    svc = _service(env, report_interval=60)
    ref = svc.service_ref
    _record().destroy()
    svc._heartbeat.report_state()
    assert _record() is None
    assert svc._heartbeat.disconnected
    assert svc.service_ref is ref
