"""keel.rpc.executor: an RPC server's pool starts a thread only when no idle
one can take the request (futurist's starts one per request up to 64)."""
import threading
import time

import oslo_messaging as messaging

from keel.rpc import executor as rpc_executor
from keel.rpc import transport as rpc_transport


def _wait_idle(pool, count, timeout=5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pool.get_num_idle_workers() == count:
            return
        time.sleep(0.01)
    raise AssertionError("%d idle, not %d" % (pool.get_num_idle_workers(),
                                              count))


def test_sequential_work_reuses_one_thread():
    pool = rpc_executor.ReusingThreadPoolExecutor(max_workers=64)
    try:
        for i in range(20):
            assert pool.submit(lambda i=i: i * 2).result(5) == i * 2
            _wait_idle(pool, 1)
        assert pool.num_workers == 1
    finally:
        pool.shutdown()


def test_concurrent_work_grows_to_the_concurrency_and_the_ceiling():
    pool = rpc_executor.ReusingThreadPoolExecutor(max_workers=4)
    release = threading.Event()
    try:
        futures = [pool.submit(release.wait, 5) for _ in range(3)]
        assert pool.num_workers == 3       # none idle: one each
        futures += [pool.submit(release.wait, 5) for _ in range(3)]
        assert pool.num_workers == 4       # the ceiling; the rest queue
        release.set()
        assert all(f.result(5) for f in futures)
        _wait_idle(pool, 4)
        pool.submit(lambda: None).result(5)
        assert pool.num_workers == 4
    finally:
        release.set()
        pool.shutdown()


def test_keel_rpc_servers_use_it(bus):
    target = messaging.Target(topic="executor-test", server="h1")
    server = rpc_transport.get_server(target, [])
    assert server._executor_cls is rpc_executor.ReusingThreadPoolExecutor


def test_queued_work_beyond_the_idle_threads_starts_one():
    # Two idle threads but three requests already waiting: a new one is
    # started; with the queue empty an idle thread takes the work.
    import queue

    pool = rpc_executor.ReusingThreadPoolExecutor(max_workers=8)
    real_queue = pool._work_queue
    try:
        class _Idle:
            idle = True

        class _Busy:
            idle = False

        pool._workers = [_Busy(), _Idle(), _Idle()]
        pool._work_queue = queue.Queue()
        started = []
        pool._add_thread = lambda: started.append(1)
        assert pool._maybe_spin_up() is False
        for _ in range(2):
            pool._work_queue.put(None)
        assert pool._maybe_spin_up() is True     # 2 waiting, 2 idle
        pool._work_queue.get()
        assert pool._maybe_spin_up() is False    # 1 waiting, 2 idle
        assert started == [1]
    finally:
        pool._workers = []
        pool._work_queue = real_queue
        pool.shutdown()
