"""``keel scheduler``: the nova-scheduler service."""
from keel.cmd import common
from keel.conf import CONF


def main(argv):
    common.parse_args(argv, "keel scheduler")
    from keel import objects
    from keel.scheduler import manager
    from keel import service

    objects.register_all()
    svc = service.Service(host=CONF.host, binary="nova-scheduler",
                          topic="scheduler",
                          manager=manager.SchedulerManager(CONF.host))
    return service.serve([svc])
