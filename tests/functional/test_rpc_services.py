"""conductor, scheduler and two computes in one process on the in-process
bus and SQLite: they register, heartbeat, call and cast each other, and the
conductor proxies object methods with real versioned objects."""
import time

import pytest

from oslo_versionedobjects import base as ovo_base

from keel.compute import manager as compute_manager
from keel.compute import rpcapi as compute_rpcapi
from keel.conductor import manager as conductor_manager
from keel.conductor import rpcapi as conductor_rpcapi
from keel.conf import CONF
from keel.conf import defaults
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects
from keel.rpc import transport as rpc_transport
from keel.rpc import versions
from keel.scheduler import manager as scheduler_manager
from keel import service
from keel import servicegroup

objects.register_all()


def _wait(predicate, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("rpc")
    defaults.set_library_defaults(CONF)
    cell_url = f"sqlite:///{tmp}/cell.sqlite"
    CONF.set_override("connection", f"sqlite:///{tmp}/api.sqlite",
                      group="api_database")
    CONF.set_override("connection", cell_url, group="database")
    CONF.set_override("transport_url", "fake:/")
    CONF.set_override("rpc_response_timeout", 10)
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    cell_models.Base.metadata.create_all(session.cell_engine())
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()
    rpc_transport.init()
    ctxt = keel_context.get_admin_context()
    objects.CellMapping(ctxt, uuid="8f2a4a47-6a0b-4c9e-9a4c-0c5b1f8e7d21",
                        name="cell1", transport_url="fake:/",
                        database_connection=cell_url).create()

    def svc(binary, topic, mgr, topic_alt=None):
        return service.Service(host=mgr.host, binary=binary, topic=topic,
                               topic_alt=topic_alt, manager=mgr,
                               report_interval=1, periodic_enable=False)
    scheduler = scheduler_manager.SchedulerManager("sched1")
    services = [
        svc("nova-conductor", "conductor",
            conductor_manager.ConductorManager("cond1")),
        svc("nova-scheduler", "scheduler", scheduler),
        svc("nova-compute", "compute",
            compute_manager.ComputeManager("cmp-1"), "compute-alt"),
        svc("nova-compute", "compute",
            compute_manager.ComputeManager("cmp-2"), "compute-alt"),
    ]
    launcher = service.Launcher(services)
    launcher.start()
    yield {"ctxt": ctxt, "scheduler": scheduler, "services": services}
    launcher.stop()
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()
    versions.reset_cache()
    session.reset()
    for opt in ("transport_url", "rpc_response_timeout"):
        CONF.clear_override(opt)
    CONF.clear_override("connection", group="api_database")
    CONF.clear_override("connection", group="database")
    CONF.clear_override("compute", group="upgrade_levels")


def test_every_service_registers_and_heartbeats(cloud):
    ctxt = cloud["ctxt"]
    rows = {(s.host, s.binary): s
            for s in objects.ServiceList.get_all(ctxt)}
    assert set(rows) == {("cond1", "nova-conductor"),
                         ("sched1", "nova-scheduler"),
                         ("cmp-1", "nova-compute"),
                         ("cmp-2", "nova-compute")}
    assert {s.version for s in rows.values()} == {versions.SERVICE_VERSION}
    counts = {k: s.report_count for k, s in rows.items()}
    assert _wait(lambda: all(
        s.report_count > counts[(s.host, s.binary)]
        for s in objects.ServiceList.get_all(ctxt)), timeout=5)
    assert all(servicegroup.API().is_up(s)
               for s in objects.ServiceList.get_all(ctxt))


def test_computes_answer_calls_by_host(cloud):
    api = compute_rpcapi.ComputeAPI()
    for host in ("cmp-1", "cmp-2"):
        uptime = api.get_host_uptime(cloud["ctxt"], host)
        assert " up " in uptime and "load average" in uptime


def test_scheduler_got_the_computes_instance_info_casts(cloud):
    view = cloud["scheduler"].host_instances
    assert _wait(lambda: {"cmp-1", "cmp-2"} <= set(view.hosts()))


def test_conductor_proxies_object_methods(cloud):
    ctxt = cloud["ctxt"]
    conductor = conductor_rpcapi.ConductorAPI()
    tree = ovo_base.obj_tree_get_versions("Service")
    svc = conductor.object_class_action_versions(
        ctxt, "Service", "get_by_host_and_binary", tree,
        ("cmp-1", "nova-compute"), {})
    assert isinstance(svc, objects.Service) and svc.host == "cmp-1"
    svc.disabled_reason = "maintenance"
    updates, result = conductor.object_action(ctxt, svc, "save", (), {})
    # The answer carries what the save changed on the conductor's copy
    # (the new updated_at) and the dirty set after it (empty).
    assert result is None
    assert not updates["obj_what_changed"]
    assert "updated_at" in updates
    assert objects.Service.get_by_id(ctxt, svc.id).disabled_reason == \
        "maintenance"
    # Asked for an older version, the conductor backports the object
    # (the primitive it returns is turned back into an object on arrival).
    old = dict(tree, Service="1.20")
    backported = conductor.object_backport_versions(ctxt, svc, old)
    assert backported.VERSION == "1.20"
    assert backported.host == "cmp-1"


def _set_version(host, version):
    # Straight to the table: Service.save() refuses to lower a version,
    # but an older compute of a rolling upgrade has a lower one.
    import sqlalchemy as sa
    with session.cell_engine().begin() as conn:
        conn.execute(sa.update(cell_models.Service)
                     .where(cell_models.Service.host == host)
                     .values(version=version))


def test_compute_auto_cap_follows_the_oldest_compute(cloud):
    CONF.set_override("compute", "auto", group="upgrade_levels")
    try:
        versions.reset_cache()
        assert versions.compute_cap() == "6.5"
        _set_version("cmp-2", 70)                       # a Flamingo compute
        versions.reset_cache()
        assert versions.compute_cap() == "6.4"
        # The client built now is capped: 6.5-only routing falls back.
        compute_rpcapi.reset_globals()
        api = compute_rpcapi.ComputeAPI()
        assert not api.can_send_version(cloud["ctxt"], "6.5")
    finally:
        _set_version("cmp-2", versions.SERVICE_VERSION)
        compute_rpcapi.reset_globals()
        CONF.clear_override("compute", group="upgrade_levels")


def test_one_process_runs_n_simulated_hosts(cloud):
    """``keel compute --hosts 2``: two hosts, each with its own service
    record, RPC servers, compute node and Placement resource provider."""
    import requests

    from keel.cmd import compute as compute_cmd
    from tests.fixtures import placement as placement_fixture

    endpoint = placement_fixture.shared_placement().endpoint
    CONF.set_override("auth_type", "none", group="placement")
    CONF.set_override("endpoint_override", endpoint, group="placement")
    CONF.set_override("host", "multi")
    services = compute_cmd.build_services(2)
    launcher = service.Launcher(services)
    try:
        launcher.start()
        assert [s.host for s in services] == ["multi-1", "multi-2"]
        ctxt = cloud["ctxt"]
        api = compute_rpcapi.ComputeAPI()
        for host in ("multi-1", "multi-2"):
            svc = objects.Service.get_by_host_and_binary(ctxt, host,
                                                         "nova-compute")
            assert svc is not None and servicegroup.API().is_up(svc)
            assert " up " in api.get_host_uptime(ctxt, host)
        resp = requests.get(endpoint + "/resource_providers",
                            headers={"OpenStack-API-Version":
                                     "placement 1.14"}, timeout=10)
        names = {rp["name"] for rp in resp.json()["resource_providers"]}
        assert {"multi-1", "multi-2"} <= names
    finally:
        launcher.stop()
        CONF.clear_override("host")
        CONF.clear_override("auth_type", group="placement")
        CONF.clear_override("endpoint_override", group="placement")
