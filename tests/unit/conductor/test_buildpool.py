"""The conductor's build pool: FIFO order, its bound, and a stop that never
waits for the queue (keel/conductor/buildpool.py)."""
import contextlib
import threading
import time

from keel.conductor import buildpool
from keel.conductor import manager as conductor_manager


def _wait(cond, timeout=5):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


class Gate:
    """Work that records itself and blocks until released."""

    def __init__(self):
        self.release = threading.Event()
        self.started = []
        self.done = []
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0

    def work(self, label):
        with self.lock:
            self.started.append(label)
            self.now += 1
            self.most = max(self.most, self.now)
        assert self.release.wait(5)
        with self.lock:
            self.now -= 1
            self.done.append(label)


def test_work_runs_in_submission_order():
    pool = buildpool.BuildPool(1)
    seen = []
    for i in range(20):
        assert pool.submit(i, seen.append, i)
    _wait(lambda: len(seen) == 20)
    assert seen == list(range(20))
    pool.stop(timeout=5)


def test_at_most_size_run_at_once_the_rest_queue():
    pool = buildpool.BuildPool(2)
    gate = Gate()
    for i in range(6):
        pool.submit(i, gate.work, i)
    _wait(lambda: pool.running == 2)
    time.sleep(0.05)
    assert gate.started == [0, 1] and pool.queued == 4
    gate.release.set()
    _wait(lambda: len(gate.done) == 6)
    assert gate.most == 2
    assert len(pool._threads) == 2
    pool.stop(timeout=5)


def test_a_failing_build_does_not_stop_the_thread():
    pool = buildpool.BuildPool(1)
    seen = []

    def boom():
        raise RuntimeError("boom")
    pool.submit("bad", boom)
    pool.submit("good", seen.append, "good")
    _wait(lambda: seen == ["good"])
    pool.stop(timeout=5)


def test_stop_drops_the_queue_without_waiting_and_refuses_new_work():
    pool = buildpool.BuildPool(1)
    gate = Gate()
    for i in range(4):
        pool.submit(i, gate.work, i)
    _wait(lambda: gate.started == [0])
    started = time.monotonic()
    assert pool.stop(timeout=0) == [1, 2, 3]
    assert time.monotonic() - started < 1
    assert pool.queued == 0 and pool.running == 1
    assert not pool.submit(9, gate.work, 9)
    gate.release.set()
    _wait(lambda: pool.running == 0)
    for thread in pool._threads:
        thread.join(5)
        assert not thread.is_alive()
    assert gate.started == [0] and gate.done == [0]


def test_stop_with_a_timeout_waits_for_running_work_only():
    pool = buildpool.BuildPool(1)
    gate = Gate()
    pool.submit(0, gate.work, 0)
    pool.submit(1, gate.work, 1)
    _wait(lambda: pool.running == 1)
    threading.Timer(0.1, gate.release.set).start()
    assert pool.stop(timeout=5) == [1]
    assert gate.done == [0] and pool.running == 0


def test_running_work_is_counted_by_the_tracker():
    tracked = []

    @contextlib.contextmanager
    def tracker(label):
        tracked.append(("start", label))
        yield
        tracked.append(("end", label))
    pool = buildpool.BuildPool(1, tracker=tracker)
    pool.submit("uuid-1", lambda: tracked.append(("run", "uuid-1")))
    _wait(lambda: len(tracked) == 3)
    assert tracked == [("start", "uuid-1"), ("run", "uuid-1"),
                       ("end", "uuid-1")]
    pool.stop(timeout=5)


# -- in the conductor -----------------------------------------------------

def _manager(monkeypatch, threads):
    from keel.conf import CONF
    CONF.set_override("build_threads", threads, group="conductor")
    try:
        mgr = conductor_manager.ConductorManager(host="cond-1")
    finally:
        CONF.clear_override("build_threads", group="conductor")
    return mgr, mgr.compute_task_mgr


class _BR:
    def __init__(self, uuid):
        self.instance_uuid = uuid


def _cast(task_mgr, uuid):
    task_mgr.schedule_and_build_instances(
        None, [_BR(uuid)], [], {}, None, [], None, [], tags=None)


def test_the_cast_returns_at_once_and_stop_waits_for_running_builds(
        monkeypatch):
    mgr, task_mgr = _manager(monkeypatch, 1)
    gate = Gate()
    monkeypatch.setattr(task_mgr, "_schedule_and_build",
                        lambda ctxt, brs, *a, **kw: gate.work(
                            brs[0].instance_uuid))
    _cast(task_mgr, "u1")
    _cast(task_mgr, "u2")
    _wait(lambda: gate.started == ["u1"])
    # A running build is an operation in flight for the graceful stop.
    assert mgr.tasks_in_progress() == [("schedule_and_build_instances",
                                        "u1")]
    mgr.set_shutdown_in_progress()
    assert task_mgr.builds.queued == 0
    _cast(task_mgr, "u3")       # refused: left to the safety net
    assert not mgr.wait_for_tasks(0.05)
    gate.release.set()
    assert mgr.wait_for_tasks(5)
    assert gate.started == ["u1"]


def test_no_build_threads_builds_on_the_rpc_thread(monkeypatch):
    mgr, task_mgr = _manager(monkeypatch, 0)
    assert task_mgr.builds is None
    ran = []
    monkeypatch.setattr(task_mgr, "_schedule_and_build",
                        lambda ctxt, brs, *a, **kw: ran.append(
                            (threading.current_thread(),
                             brs[0].instance_uuid)))
    _cast(task_mgr, "u1")
    assert ran == [(threading.current_thread(), "u1")]
    mgr.set_shutdown_in_progress()



def test_the_manager_imports_what_builds_need_when_made():
    # The first builds of a worker do not pay for importing the clients,
    # the quota re-check and the notifications (a fresh interpreter: the
    # test session has imported them all already).
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from keel.conductor import manager\n"
        "wanted = manager._BUILD_MODULES\n"
        "before = [m for m in wanted if m in sys.modules]\n"
        "task_mgr = manager.ComputeTaskManager('h', tracker=None)\n"
        "task_mgr.stop_builds()\n"
        "print(before, all(m in sys.modules for m in wanted),\n"
        "      task_mgr._clients)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    before, loaded, clients = out.rsplit("\n", 2)[-2].rsplit(" ", 2)
    assert loaded == "True"
    assert clients == "None"    # the clients are still made on first use
    assert before != str(list(conductor_manager._BUILD_MODULES))
