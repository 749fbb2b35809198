"""Pick the RPC client for a request: the targeted cell's broker or ours."""
import threading

import oslo_messaging as messaging

from keel.rpc import transport as rpc_transport


class ClientRouter:
    """Route messages to ``context.mq_connection`` when the context is
    targeted at a cell (``keel.context.target_cell``), else to the default
    client. One client per cell transport is kept, built with the default
    client's target, version cap, serializer and call monitor timeout."""

    def __init__(self, default_client):
        self.default_client = default_client
        self.target = default_client.target
        self.version_cap = default_client.version_cap
        self.serializer = default_client.serializer
        self._lock = threading.Lock()
        self._clients = {}

    def client(self, context):
        transport = getattr(context, "mq_connection", None)
        if transport is None or transport is self.default_client.transport:
            return self.default_client
        with self._lock:
            client = self._clients.get(id(transport))
            if client is None:
                client = messaging.get_rpc_client(
                    transport, self.target, version_cap=self.version_cap,
                    serializer=self.serializer,
                    call_monitor_timeout=getattr(
                        self.default_client, "call_monitor_timeout", None))
                self._clients[id(transport)] = client
            return client


def make_router(target, version_cap, serializer, call_monitor_timeout=None):
    default = rpc_transport.get_client(
        target, version_cap=version_cap, serializer=serializer,
        call_monitor_timeout=call_monitor_timeout)
    return ClientRouter(default)
