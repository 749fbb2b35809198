"""``keel compute [--hosts N]``: the nova-compute service.

With ``--hosts N`` one process runs N simulated hosts named
``<[DEFAULT]/host>-1`` .. ``-N``, each with its own services record, RPC
servers (``compute`` and ``compute-alt``), driver instance and resource
provider: the tool for scale tests. A compute never opens a database: every
object method goes to the conductor (the objects' indirection API).
"""
import argparse

from oslo_log import log as logging

from keel.cmd import common
from keel.conf import CONF

LOG = logging.getLogger(__name__)


def _split_hosts(argv):
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--hosts", type=int, default=None)
    known, rest = parser.parse_known_args(argv)
    if known.hosts is not None and known.hosts < 1:
        raise SystemExit("keel compute: --hosts must be at least 1")
    return known.hosts, rest


def host_names(base, count):
    """The host names of a process running ``count`` simulated hosts."""
    if not count:
        return [base]
    return [f"{base}-{i}" for i in range(1, count + 1)]


def build_driver(host):
    """A driver instance for ``host`` from ``[DEFAULT]/compute_driver``,
    or None while the virt package is not there."""
    try:
        from keel.virt import driver as virt_driver
    except ImportError:
        LOG.warning("No virt driver available: %s runs without resource "
                    "tracking", host)
        return None
    return virt_driver.load_compute_driver(CONF.compute_driver, host)


def build_reportclient():
    try:
        from keel.clients import report
    except ImportError:
        return None
    return report.ReportClient()


def build_services(count=None):
    from keel.compute import manager
    from keel import service

    reportclient = build_reportclient()
    services = []
    for host in host_names(CONF.host, count):
        mgr = manager.ComputeManager(host, driver=build_driver(host),
                                     reportclient=reportclient)
        services.append(service.Service(
            host=host, binary="nova-compute", topic="compute",
            topic_alt="compute-alt", manager=mgr))
    return services


def main(argv):
    count, rest = _split_hosts(argv)
    common.parse_args(rest, "keel compute")
    from keel.conductor import rpcapi as conductor_rpcapi
    from keel import context as keel_context
    from keel import objects
    from keel.objects import base as objects_base
    from keel import service

    objects.register_all()
    conductor = conductor_rpcapi.ConductorAPI()
    objects_base.KeelObject.indirection_api = conductor

    def wait_for_conductor():
        conductor.wait_until_ready(keel_context.get_admin_context(),
                                   timeout=CONF.rpc_response_timeout)

    return service.serve(build_services(count),
                         before_start=wait_for_conductor)
