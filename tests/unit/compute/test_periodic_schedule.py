"""Which compute periodic tasks run at the first periodic run after start
(Nova's run_immediately): the power-state sync does, the schedulers' sync
of the host's instances waits one interval."""
import pytest

from keel.compute import manager as compute_manager
from keel.compute.ops import consoles
from keel.compute.ops import delete as delete_ops
from keel.compute.ops import power_sync
from keel.compute.ops import recovery
from keel.compute.ops import resize_confirm
from keel import context as keel_context
from keel import manager as keel_manager
from keel import objects

objects.register_all()


class Scheduler:
    def __init__(self):
        self.syncs = []

    def sync_instance_info(self, ctxt, host, uuids):
        self.syncs.append(host)


@pytest.fixture
def mgr(monkeypatch):
    ran = []
    monkeypatch.setattr(power_sync, "sync_power_states",
                        lambda m, ctx: ran.append("power"))
    monkeypatch.setattr(compute_manager.ComputeManager, "_host_instances",
                        lambda self, ctx, expected_attrs=None: [])
    for mod, name in ((recovery, "error_out_timed_out_builds"),
                      (recovery, "error_out_abandoned_builds_if_due"),
                      (delete_ops, "reclaim_queued_deletes"),
                      (resize_confirm, "poll_unconfirmed_resizes"),
                      (consoles, "clean_expired_tokens")):
        monkeypatch.setattr(mod, name, lambda *a, **k: None)
    scheduler = Scheduler()
    m = compute_manager.ComputeManager(host="h1", scheduler_client=scheduler)
    m.driver = object()  # only its presence matters to the power sync
    m.ran, m.scheduler = ran, scheduler
    yield m
    m.build_pool.shutdown(wait=False)


def test_power_sync_runs_at_the_first_periodic_run(mgr):
    mgr.periodic_tasks(keel_context.get_admin_context())
    assert mgr.ran == ["power"]


def test_scheduler_instance_sync_waits_one_interval(mgr):
    # oslo.service counts a task without run_immediately from the moment
    # its decorator ran (the module's import): a service starts seconds
    # after that, a test in a long worker run maybe minutes later. So the
    # start is set to now, as in a service, rather than relying on it.
    name = "_sync_scheduler_instance_info"
    assert not getattr(compute_manager.ComputeManager, name)._periodic_immediate
    mgr._periodic_last_run[name] = keel_manager.periodic_task.now()
    mgr.periodic_tasks(keel_context.get_admin_context())
    assert mgr.scheduler.syncs == []


def test_power_sync_not_repeated_within_its_interval(mgr):
    ctxt = keel_context.get_admin_context()
    mgr.periodic_tasks(ctxt)
    mgr.periodic_tasks(ctxt)
    assert mgr.ran == ["power"]
