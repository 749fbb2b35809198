"""The thread pool an RPC server dispatches its requests on.

oslo.messaging's ``threading`` executor is futurist's ThreadPoolExecutor,
which starts a new thread for every request it is given until it has
``[DEFAULT]/executor_thread_pool_size`` (64), idle ones or not; and every
idle futurist thread wakes up once a second to see whether it should
exit. A compute process serving 50 simulated hosts runs 100 RPC servers:
left alone it grows towards 6,400 threads, most of them idle, waking
6,400 times a second. This pool starts a thread only when no idle one is
there to take the request, so a server keeps as many threads as requests
it actually ran at the same time; the ceiling is unchanged.
"""
import futurist


class ReusingThreadPoolExecutor(futurist.ThreadPoolExecutor):

    def _maybe_spin_up(self):
        # Called by submit() under the pool's lock, before the new work is
        # queued: the idle threads must outnumber the work already waiting.
        # Stop at the first idle thread beyond the waiting work (an RPC
        # server's queue is nearly always empty): the pool is walked on
        # every request.
        if len(self._workers) >= self._max_workers:
            return False
        waiting = self._work_queue.qsize()
        for worker in self._workers:
            if worker.idle:
                if not waiting:
                    return False
                waiting -= 1
        self._add_thread()
        return True


def use_reusing_pool(server):
    """Make ``server`` (an oslo.messaging server not started yet) dispatch
    on a ReusingThreadPoolExecutor, if it uses futurist's thread pool."""
    if getattr(server, "_executor_cls", None) is futurist.ThreadPoolExecutor:
        server._executor_cls = ReusingThreadPoolExecutor
    return server
