"""RPC plumbing shared by every service: transports, serializer, client
routing and version caps. Services build their clients and servers with
``keel.rpc.transport.get_client`` / ``get_server``."""
