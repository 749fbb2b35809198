"""Nova's _sync_instance_power_state table: what the compute does when the
hypervisor's power state and the database disagree, for every vm_state,
and what a lifecycle event maps to."""
import pytest

from keel.compute.ops import power
from keel.compute.ops import power_sync
from keel import exception
from keel import objects
from keel.virt import event as virtevent
from keel.virt import power_state as ps

objects.register_all()
HOST = "h1"


class Instance:
    """What the sync reads and writes of an instance row."""

    def __init__(self, vm_state, power_state=ps.RUNNING, task_state=None,
                 host=HOST):
        self.uuid = "a1b2"
        self.vm_state, self.power_state = vm_state, power_state
        self.task_state, self.host = task_state, host
        self.saves = []

    def refresh(self):
        pass

    def save(self, expected_task_state=None):
        self.saves.append({"power_state": self.power_state,
                           "task_state": self.task_state})


class Mgr:
    host = HOST

    def __init__(self, guest_state=None):
        self.guest_state = guest_state
        self.driver = self
        self.busy = set()          # instances with an operation in flight

    def has_task_for(self, instance_uuid):
        return instance_uuid in self.busy

    def get_info(self, instance):
        if self.guest_state is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        return type("Info", (), {"state": self.guest_state})


@pytest.fixture
def stops(monkeypatch):
    seen = []
    monkeypatch.setattr(power_sync, "_stop",
                        lambda mgr, ctx, inst: seen.append(inst.uuid))
    return seen


@pytest.mark.parametrize("vm_state,vm_power,stopped", [
    ("active", ps.SHUTDOWN, True),
    ("active", ps.CRASHED, True),
    ("active", ps.SUSPENDED, True),
    ("active", ps.PAUSED, False),        # outside tools pause guests
    ("active", ps.NOSTATE, False),       # guest not found: only logged
    ("active", ps.RUNNING, False),
    ("stopped", ps.RUNNING, True),       # forced off again
    ("stopped", ps.PAUSED, True),
    ("stopped", ps.SHUTDOWN, False),
    ("stopped", ps.NOSTATE, False),
    ("paused", ps.SHUTDOWN, True),
    ("paused", ps.RUNNING, False),
    ("building", ps.SHUTDOWN, False),
    ("rescued", ps.SHUTDOWN, False),
    ("resized", ps.SHUTDOWN, False),
    ("suspended", ps.RUNNING, False),
    ("error", ps.SHUTDOWN, False),
    ("soft-delete", ps.RUNNING, False),
])
def test_vm_state_rules(stops, vm_state, vm_power, stopped):
    inst = Instance(vm_state)
    power_sync.sync_instance_power_state(Mgr(), None, inst, vm_power)
    assert stops == (["a1b2"] if stopped else [])
    # The DB power state always follows the hypervisor.
    assert inst.power_state == vm_power
    assert bool(inst.saves) == (vm_power != ps.RUNNING)


def test_pending_task_or_other_host_is_left_alone(stops):
    busy = Instance("active", task_state="powering-off")
    power_sync.sync_instance_power_state(Mgr(), None, busy, ps.SHUTDOWN)
    moved = Instance("active", host="h2")
    power_sync.sync_instance_power_state(Mgr(), None, moved, ps.SHUTDOWN)
    assert stops == [] and busy.saves == [] and moved.saves == []
    assert busy.power_state == moved.power_state == ps.RUNNING


def test_unknown_guest_counts_as_nostate(stops):
    inst = Instance("stopped", power_state=ps.SHUTDOWN)
    power_sync.query_driver_power_state_and_sync(Mgr(None), None, inst)
    assert inst.power_state == ps.NOSTATE and stops == []


@pytest.mark.parametrize("transition,state", [
    (virtevent.EVENT_LIFECYCLE_STOPPED, ps.SHUTDOWN),
    (virtevent.EVENT_LIFECYCLE_STARTED, ps.RUNNING),
    (virtevent.EVENT_LIFECYCLE_PAUSED, ps.PAUSED),
    (virtevent.EVENT_LIFECYCLE_RESUMED, ps.RUNNING),
    (virtevent.EVENT_LIFECYCLE_SUSPENDED, ps.SUSPENDED),
])
def test_lifecycle_event_power_states(monkeypatch, transition, state):
    seen = []
    monkeypatch.setattr(power_sync.objects.Instance, "get_by_uuid",
                        classmethod(lambda cls, ctx, uuid, **kw:
                                    Instance("active")))
    monkeypatch.setattr(power_sync, "sync_instance_power_state",
                        lambda mgr, ctx, inst, vm_power: seen.append(vm_power))
    power_sync.handle_events(Mgr(), virtevent.LifecycleEvent("a1b2",
                                                             transition))
    assert seen == [state]


def test_event_for_an_instance_with_an_operation_in_flight_is_left_to_it(
        monkeypatch):
    # No instance read (a conductor round trip), no sync: the build or the
    # stop running on it records the guest's state itself.
    def unexpected(*args, **kwargs):
        raise AssertionError("the instance was read")
    monkeypatch.setattr(power_sync.objects.Instance, "get_by_uuid",
                        classmethod(unexpected))
    monkeypatch.setattr(power_sync, "sync_instance_power_state", unexpected)
    mgr = Mgr(ps.RUNNING)
    mgr.busy.add("a1b2")
    power_sync.handle_events(mgr, virtevent.LifecycleEvent(
        "a1b2", virtevent.EVENT_LIFECYCLE_STARTED))


def test_tail_log():
    text = "one\ntwo\nthree"
    assert power.tail_log(text, 2) == "two\nthree"
    assert power.tail_log(text, "1") == "three"
    assert power.tail_log(text, 0) == ""
    assert power.tail_log(text, "junk") == ""


def test_a_stale_event_yields_to_the_guests_present_state(monkeypatch):
    seen = []
    monkeypatch.setattr(power_sync.objects.Instance, "get_by_uuid",
                        classmethod(lambda cls, ctx, uuid, **kw:
                                    Instance("active")))
    monkeypatch.setattr(power_sync, "sync_instance_power_state",
                        lambda mgr, ctx, inst, vm_power: seen.append(vm_power))
    # "Stopped" arrives after a hard reboot has the guest running again.
    power_sync.handle_events(Mgr(ps.RUNNING), virtevent.LifecycleEvent(
        "a1b2", virtevent.EVENT_LIFECYCLE_STOPPED))
    assert seen == [ps.RUNNING]


def test_periodic_pass_reads_the_host_once_and_refreshes_idle_instances(
        monkeypatch, stops):
    """Nova's _sync_power_states: one InstanceList.get_by_host for the host;
    each instance without a task is refreshed (Nova's
    _sync_instance_power_state re-reads it) and written only when its power
    state differs from the hypervisor's; a busy one costs nothing."""
    import contextlib
    reads, refreshed = [], []

    class Counted(Instance):
        def refresh(self):
            refreshed.append(self.uuid)

    idle, off, busy = (Counted("active"), Counted("active"),
                       Counted("active", task_state="rebooting"))
    idle.uuid, off.uuid, busy.uuid = "idle", "off", "busy"
    off.power_state = ps.SHUTDOWN  # the guest runs again
    monkeypatch.setattr(
        power_sync.objects.InstanceList, "get_by_host",
        lambda ctx, host, expected_attrs=None: reads.append(host) or
        [idle, off, busy])
    mgr = Mgr(guest_state=ps.RUNNING)
    mgr.list_instance_uuids = lambda: ["idle", "off", "busy"]
    mgr.instance_lock = lambda uuid: contextlib.nullcontext()
    assert power_sync.sync_power_states(mgr, None) == ["idle", "off"]
    assert reads == [HOST]
    assert refreshed == ["idle", "off"]
    assert (idle.saves, busy.saves) == ([], [])
    assert off.saves == [{"power_state": ps.RUNNING, "task_state": None}]
