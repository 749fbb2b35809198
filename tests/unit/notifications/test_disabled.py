"""With [oslo_messaging_notifications]/driver empty (or noop) nothing is
built and nothing sent: every helper returns after reading two options."""
import time

import pytest

from keel.conf import CONF
from keel import notifications
from keel.notifications import instance as notify
from keel.notifications import legacy
from keel.notifications.objects import instance as inst_obj
from keel.notifications.testing import NotificationCapture
from tests.unit.notifications import conftest as c


def _every_helper(ctx, inst):
    notify.notify_about_instance_create(ctx, inst, "h", phase="start")
    notify.notify_about_instance_action(ctx, inst, "h", "power_on", "end")
    notify.notify_about_instance_usage(ctx, inst, "create.start")
    notify.notify_compute_task_failure(ctx, "build_instances", inst.uuid,
                                       None, "error", ValueError("x"))
    with notify.notify_about_instance_delete(ctx, inst):
        pass
    notify.send_update(ctx, inst, inst)


@pytest.fixture
def no_payloads(monkeypatch):
    """Fail loudly if any payload were built."""
    def boom(*a, **kw):
        raise AssertionError("a payload was built")
    monkeypatch.setattr(inst_obj.InstancePayload, "__init__", boom)
    monkeypatch.setattr(legacy, "info_from_instance", boom)


@pytest.mark.parametrize("driver", [[], ["noop"]])
@pytest.mark.parametrize("fmt", ["both", "versioned", "unversioned"])
def test_nothing_is_built(ctx, no_payloads, driver, fmt):
    CONF.set_override("driver", driver, group="oslo_messaging_notifications")
    CONF.set_override("notification_format", fmt, group="notifications")
    CONF.set_override("notify_on_state_change", "vm_and_task_state",
                      group="notifications")
    try:
        inst = c.make_instance(ctx)
        _every_helper(ctx, inst)
        assert notifications.get_notifier("compute") is notifications.NOOP
        assert (notifications.get_versioned_notifier("nova-compute:h") is
                notifications.NOOP)
    finally:
        CONF.clear_override("driver", group="oslo_messaging_notifications")
        CONF.clear_override("notification_format", group="notifications")
        CONF.clear_override("notify_on_state_change", group="notifications")


def _per_call(fn, n):
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def test_cost_per_call(ctx, capsys):
    """Off: a few microseconds per helper call (two option reads). On (for
    comparison): a versioned action notification built and sent through
    the in-memory test driver."""
    inst = c.make_instance(ctx)
    CONF.set_override("notification_format", "both", group="notifications")
    try:
        off = _per_call(lambda: notify.notify_about_instance_action(
            ctx, inst, "h", "power_on", "end"), 20000)
        off_legacy = _per_call(lambda: notify.notify_about_instance_usage(
            ctx, inst, "power_on.end"), 20000)
    finally:
        CONF.clear_override("notification_format", group="notifications")
    with NotificationCapture(fmt="both"):
        on = _per_call(lambda: notify.notify_about_instance_action(
            ctx, inst, "h", "power_on", "end"), 200)
    with capsys.disabled():
        print("\nnotification cost per call: off %.2f us (versioned), "
              "%.2f us (legacy); on %.0f us (versioned, built and sent)"
              % (off * 1e6, off_legacy * 1e6, on * 1e6))
    # Generous bound for a shared 2-core machine; typical is ~1-3 us.
    assert off < 50e-6 and off_legacy < 50e-6
    assert off * 20 < on


def test_a_changed_option_is_seen_at_once(ctx):
    """The switches are cached, but never across a config change."""
    inst = c.make_instance(ctx)
    with NotificationCapture(fmt="both") as cap:
        notify.notify_about_instance_action(ctx, inst, "h", "pause", "end")
        assert len(cap.versioned) == 1
        CONF.set_override("notification_format", "unversioned",
                          group="notifications")
        notify.notify_about_instance_action(ctx, inst, "h", "pause", "end")
        assert len(cap.versioned) == 1
        CONF.set_override("driver", [], group="oslo_messaging_notifications")
        notify.notify_about_instance_usage(ctx, inst, "pause.end")
        assert cap.legacy == []
        CONF.set_override("driver", ["test"],
                          group="oslo_messaging_notifications")
        notify.notify_about_instance_usage(ctx, inst, "pause.end")
        assert len(cap.legacy) == 1
