"""The compute, scheduler and conductor clients against live endpoints on
the in-process bus: routing by host, compute-alt, fanout, caps, timeouts."""
import threading

import oslo_messaging as messaging
import pytest

from keel.compute import rpcapi as compute_rpcapi
from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel import objects
from keel.rpc import versions
from keel.scheduler import rpcapi as scheduler_rpcapi
from tests.unit.rpc.conftest import serve


class Recorder:
    """An endpoint at a given version that records what it receives."""

    def __init__(self, name, version="6.5"):
        self.target = messaging.Target(version=version)
        self.name = name
        self.calls = []
        self.event = threading.Event()

    def __getattr__(self, method):
        if method.startswith("_"):
            raise AttributeError(method)

        def handler(context, **kwargs):
            self.calls.append((method, kwargs))
            self.event.set()
            return {"server": self.name, "method": method}
        return handler


def _instance(host="host1"):
    return objects.Instance(uuid="6b8b9a8e-3c5a-4b7e-9d0c-2b1f1d4f0a11",
                            host=host)


@pytest.fixture
def ctxt():
    return keel_context.get_admin_context()


def test_calls_reach_the_instance_host(bus, ctxt):
    serve(bus, "compute", [Recorder("host1")], server="host1")
    serve(bus, "compute", [Recorder("host2")], server="host2")
    api = compute_rpcapi.ComputeAPI()
    assert api.get_host_uptime(ctxt, "host2")["server"] == "host2"
    got = api.get_console_output(ctxt, _instance("host1"), tail_length=10)
    assert got == {"server": "host1", "method": "get_console_output"}


def test_instance_without_host_is_refused(bus, ctxt):
    api = compute_rpcapi.ComputeAPI()
    with pytest.raises(exception.NovaException, match="Unable to find host"):
        api.pause_instance(ctxt, objects.Instance(uuid=_instance().uuid,
                                                  host=None))


def test_operations_in_progress_use_compute_alt(bus, ctxt):
    main, alt = Recorder("main"), Recorder("alt")
    serve(bus, "compute", [main], server="host1")
    serve(bus, "compute-alt", [alt], server="host1")
    api = compute_rpcapi.ComputeAPI()
    got = api.validate_console_port(ctxt, _instance(), port=5900,
                                    console_type="novnc")
    assert got["server"] == "alt"
    assert api.check_instance_shared_storage(
        ctxt, {"filename": "x"}, instance=_instance())["server"] == "alt"
    alt.event.clear()
    api.finish_resize(ctxt, _instance(), migration=None, image={},
                      disk_info=None, host="host1", request_spec=None)
    assert alt.event.wait(5)
    assert [c[0] for c in alt.calls][-1] == "finish_resize"
    # New work still goes to the main topic.
    api.pause_instance(ctxt, _instance())
    assert main.event.wait(5)
    assert main.calls[-1][0] == "pause_instance"


def test_compute_alt_falls_back_below_6_5(bus, ctxt):
    CONF.set_override("compute", "epoxy", group="upgrade_levels")  # 6.4
    main = Recorder("main", version="6.4")
    serve(bus, "compute", [main], server="host1")
    api = compute_rpcapi.ComputeAPI()
    got = api.validate_console_port(ctxt, _instance(), port=5900,
                                    console_type="novnc")
    assert got["server"] == "main"


def test_cap_below_method_version_is_refused(bus, ctxt):
    CONF.set_override("compute", "6.3", group="upgrade_levels")
    api = compute_rpcapi.ComputeAPI()
    with pytest.raises(versions.UnsupportedRPCVersion):
        api.allow_share(ctxt, _instance(), share_mapping=None)


def test_cap_downgrades_remove_volume_connection(bus, ctxt):
    CONF.set_override("compute", "6.2", group="upgrade_levels")
    main = Recorder("main", version="6.2")
    serve(bus, "compute", [main], server="host1")
    api = compute_rpcapi.ComputeAPI()
    api.remove_volume_connection(ctxt, _instance(), "vol-1", "host1",
                                 delete_attachment=True)
    method, kwargs = main.calls[-1]
    assert method == "remove_volume_connection"
    assert "delete_attachment" not in kwargs


def test_long_calls_use_long_rpc_timeout(bus, ctxt, monkeypatch):
    seen = {}
    api = compute_rpcapi.ComputeAPI()
    client = api.router.default_client
    real_prepare = client.prepare

    def spy(**kw):
        seen.update(kw)
        return real_prepare(**kw)
    monkeypatch.setattr(client, "prepare", spy)
    serve(bus, "compute", [Recorder("host1")], server="host1")
    api.cache_images(ctxt, "host1", ["img"])
    assert seen["timeout"] == CONF.long_rpc_timeout
    assert seen["call_monitor_timeout"] == CONF.rpc_response_timeout


def test_scheduler_casts_fan_out_to_every_scheduler(bus, ctxt):
    a = Recorder("sched-a", version="4.5")
    b = Recorder("sched-b", version="4.5")
    serve(bus, "scheduler", [a], server="sched-a")
    serve(bus, "scheduler", [b], server="sched-b")
    api = scheduler_rpcapi.SchedulerAPI()
    api.sync_instance_info(ctxt, "host1", ["u1", "u2"])
    assert a.event.wait(5) and b.event.wait(5)
    for rec in (a, b):
        assert rec.calls == [("sync_instance_info",
                              {"host_name": "host1",
                               "instance_uuids": ["u1", "u2"]})]


def test_select_destinations_with_old_cap_refuses_selection_objects(bus,
                                                                     ctxt):
    CONF.set_override("scheduler", "pike", group="upgrade_levels")
    api = scheduler_rpcapi.SchedulerAPI()
    with pytest.raises(exception.NovaException):
        api.select_destinations(ctxt, None, ["u1"], return_objects=True)
