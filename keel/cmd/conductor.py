"""``keel conductor``: the nova-conductor service.

``[conductor]/workers`` processes (default: the CPU count) serve the
conductor topic as one service (keel/workers.py).
"""
from keel.cmd import common
from keel.conf import CONF


def main(argv):
    common.parse_args(argv, "keel conductor")
    # Imported after parsing: periodic task spacings read the config.
    from keel.conductor import manager
    from keel import objects
    from keel import workers

    objects.register_all()
    return workers.serve(
        host=CONF.host, binary="nova-conductor", topic="conductor",
        manager_factory=lambda: manager.ConductorManager(CONF.host),
        workers=workers.worker_count(CONF.conductor.workers))
