"""Instance claims of the resource tracker: node usage follows builds in
flight, aborts give it back, the periodic refresh keeps counting claimed
builds the hypervisor does not know yet; failed-build stats."""
import pytest

from keel import exception
from keel import objects
from keel.compute.resources import tracker as rt_mod
from keel.conf import CONF
from tests.unit.compute.resources.test_tracker import _client
from tests.unit.compute.resources.test_tracker import _host
from tests.unit.compute.resources.test_tracker import ctx  # noqa: F401


def _instance(memory_mb=2048, vcpus=2, root_gb=10):
    flavor = objects.Flavor(memory_mb=memory_mb, vcpus=vcpus,
                            root_gb=root_gb, ephemeral_gb=0)
    return objects.Instance(uuid="6c3f6f52-7d7e-4d55-8c2c-5b3b0d6a1e01",
                            flavor=flavor)


def _tracker(ctx):
    driver = _host("claims")
    client, _ = _client()
    rt = rt_mod.ResourceTracker(driver.host, driver, client, conf=CONF)
    rt.update_available_resource(ctx)
    return rt, driver


def _record(ctx, rt, driver):
    return objects.ComputeNode.get_by_host_and_nodename(
        ctx, driver.host, driver.nodename)


def test_claim_counts_usage_and_binds_the_instance(ctx):  # noqa: F811
    rt, driver = _tracker(ctx)
    before = _record(ctx, rt, driver)
    inst = _instance()
    with rt.instance_claim(ctx, inst, driver.nodename):
        during = _record(ctx, rt, driver)
        assert during.memory_mb_used == before.memory_mb_used + 2048
        assert during.vcpus_used == before.vcpus_used + 2
        assert during.local_gb_used == before.local_gb_used + 10
        assert during.free_ram_mb == before.free_ram_mb - 2048
        assert (inst.host, inst.node, inst.launched_on) == (
            driver.host, driver.nodename, driver.host)
        assert inst.compute_id == before.id
        # A refresh meanwhile: the hypervisor has no guest yet, the claim
        # still counts.
        rt.update_available_resource(ctx)
        assert _record(ctx, rt, driver).memory_mb_used == \
            during.memory_mb_used


def test_failed_build_aborts_the_claim(ctx):  # noqa: F811
    rt, driver = _tracker(ctx)
    before = _record(ctx, rt, driver)
    inst = _instance()
    with pytest.raises(RuntimeError):
        with rt.instance_claim(ctx, inst, driver.nodename):
            raise RuntimeError("spawn failed")
    after = _record(ctx, rt, driver)
    assert after.memory_mb_used == before.memory_mb_used
    assert after.vcpus_used == before.vcpus_used
    assert inst.host is None and inst.node is None
    rt.update_available_resource(ctx)
    assert _record(ctx, rt, driver).memory_mb_used == before.memory_mb_used


def test_unknown_node_is_unavailable(ctx):  # noqa: F811
    rt, driver = _tracker(ctx)
    with pytest.raises(exception.ComputeResourcesUnavailable):
        with rt.instance_claim(ctx, _instance(), "no-such-node"):
            pass


def test_failed_builds_counted_and_reset(ctx):  # noqa: F811
    rt, driver = _tracker(ctx)
    rt.build_failed(driver.nodename)
    rt.build_failed(driver.nodename)
    assert _record(ctx, rt, driver).stats["failed_builds"] == "2"
    rt.build_succeeded(driver.nodename)
    assert _record(ctx, rt, driver).stats["failed_builds"] == "0"


def test_allocations_of_deleted_instances_are_freed(ctx):  # noqa: F811
    import uuid
    rt, driver = _tracker(ctx)
    node = rt.get_node_uuid(driver.nodename)
    placement = rt.reportclient.placement
    uuids = {}
    for name in ("deleted", "alive", "no_row"):
        uuids[name] = str(uuid.uuid4())
        resp = placement.put_allocations(
            ctx, uuids[name], {node: {"resources": {"MEMORY_MB": 64}}},
            "p", "u", None)
        assert resp.status_code == 204
    for name in ("deleted", "alive"):
        inst = objects.Instance(ctx, uuid=uuids[name], project_id="p",
                                user_id="u", host=driver.host)
        inst.create()
        if name == "deleted":
            inst.destroy()
    assert rt.remove_deleted_instances_allocations(ctx) == [
        uuids["deleted"]]
    left = placement.get_provider_allocations(ctx, node)
    assert set(left) == {uuids["alive"], uuids["no_row"]}
    for name in ("alive", "no_row"):
        placement.delete_allocations(ctx, uuids[name])


def test_startup_reads_each_node_allocations_once(ctx):  # noqa: F811
    """init_host: the interrupted-build sweep and the deleted-instance
    sweep share one read of the node's allocations."""
    import uuid
    from keel.compute import manager as compute_manager

    class Scheduler(object):
        def update_instance_info(self, *args):
            pass

    driver = _host("startup")
    client, adapter = _client()
    mgr = compute_manager.ComputeManager(driver.host, driver=driver,
                                         reportclient=client,
                                         scheduler_client=Scheduler())
    mgr.rt.update_available_resource(ctx, startup=True)
    node = mgr.rt.get_node_uuid(driver.nodename)
    gone = str(uuid.uuid4())
    assert client.placement.put_allocations(
        ctx, gone, {node: {"resources": {"MEMORY_MB": 64}}}, "p", "u",
        None).status_code == 204
    inst = objects.Instance(ctx, uuid=gone, project_id="p", user_id="u",
                            host=driver.host)
    inst.create()
    inst.destroy()
    adapter.reset()
    mgr.init_host()
    reads = [u for m, u, _h in adapter.calls
             if m == "GET" and u.endswith("/%s/allocations" % node)]
    assert len(reads) == 1
    assert client.placement.get_provider_allocations(ctx, node) == {}


def test_startup_tells_the_schedulers_what_recovery_left(ctx,  # noqa: F811
                                                         monkeypatch):
    """init_host reads the host's instances once: recovery works on them
    and the schedulers get the ones still there (a finished delete gone)."""
    import uuid
    from keel.compute import manager as compute_manager

    sent = []

    class Scheduler(object):
        def update_instance_info(self, context, host, instances):
            sent.append((host, sorted(i.uuid for i in instances)))

    driver = _host("startup-view")
    client, _adapter = _client()
    mgr = compute_manager.ComputeManager(driver.host, driver=driver,
                                         reportclient=client,
                                         scheduler_client=Scheduler())
    made = {}
    for name, task_state in (("running", None), ("deleting", "deleting")):
        made[name] = str(uuid.uuid4())
        objects.Instance(ctx, uuid=made[name], project_id="p", user_id="u",
                         host=driver.host, node=driver.nodename,
                         vm_state="active", task_state=task_state).create()
    reads = []
    real = objects.InstanceList.get_by_host

    def counting(*args, **kwargs):
        reads.append(args[1:2])
        return real(*args, **kwargs)
    monkeypatch.setattr(objects.InstanceList, "get_by_host", counting)
    mgr.init_host()
    assert reads == [(driver.host,)]
    assert sent == [(driver.host, [made["running"]])]
