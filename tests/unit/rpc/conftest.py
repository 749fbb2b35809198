"""An in-process message bus (oslo.messaging's ``fake://`` driver) per test."""
import threading

import pytest

from keel.conf import CONF
from keel.conf import defaults
from keel.compute import rpcapi as compute_rpcapi
from keel import objects
from keel.rpc import transport as rpc_transport
from keel.rpc import versions

objects.register_all()


@pytest.fixture
def bus():
    defaults.set_library_defaults(CONF)
    CONF.set_override("transport_url", "fake:/")
    CONF.set_override("rpc_response_timeout", 5)
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()
    transport = rpc_transport.init()
    servers = []
    yield servers
    # Each stop waits for a listener poll (about 1 s): stop them together.
    threads = [threading.Thread(target=lambda s=s: (s.stop(), s.wait()))
               for s in servers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()
    versions.reset_cache()
    CONF.clear_override("transport_url")
    CONF.clear_override("rpc_response_timeout")
    for group in ("compute", "conductor", "scheduler"):
        CONF.clear_override(group, group="upgrade_levels")


def serve(bus, topic, endpoints, server="host1", transport=None):
    """Start an RPC server on the bus; stopped by the fixture."""
    import oslo_messaging as messaging
    from keel.rpc import serializer as rpc_serializer

    srv = rpc_transport.get_server(
        messaging.Target(topic=topic, server=server), endpoints,
        rpc_serializer.object_serializer(), transport=transport)
    srv.start()
    bus.append(srv)
    return srv
