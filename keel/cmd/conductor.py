"""``keel conductor``: the nova-conductor service."""
from keel.cmd import common
from keel.conf import CONF


def main(argv):
    common.parse_args(argv, "keel conductor")
    # Imported after parsing: periodic task spacings read the config.
    from keel.conductor import manager
    from keel import objects
    from keel import service

    objects.register_all()
    svc = service.Service(host=CONF.host, binary="nova-conductor",
                          topic="conductor",
                          manager=manager.ConductorManager(CONF.host))
    return service.serve([svc])
