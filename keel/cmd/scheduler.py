"""``keel scheduler``: the nova-scheduler service.

``[scheduler]/workers`` processes (default: the CPU count, as Nova's for
its filter scheduler) serve the scheduler topic as one service
(keel/workers.py); each keeps its own view of the hosts' instances (the
computes' updates reach every worker through the fanout).
"""
from keel.cmd import common
from keel.conf import CONF


def main(argv):
    common.parse_args(argv, "keel scheduler")
    from keel import objects
    from keel.scheduler import manager
    from keel import workers

    objects.register_all()
    return workers.serve(
        host=CONF.host, binary="nova-scheduler", topic="scheduler",
        manager_factory=lambda: manager.SchedulerManager(CONF.host),
        workers=workers.worker_count(CONF.scheduler.workers))
