"""An in-process message bus (oslo.messaging's ``fake://`` driver) per test."""
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
    for server in servers:       # stop all, then wait: each wait is a poll
        server.stop()
    for server in servers:
        server.wait()
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
