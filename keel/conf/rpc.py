"""oslo.messaging's [DEFAULT] options (transport_url, control_exchange,
rpc_response_timeout), registered up front.

The library registers them lazily, when a transport or a client is built;
registering the library's own option objects at configuration time lets
code that runs before the first client read them (e.g. the compute client's
heartbeat threshold) and lets ``set_transport_defaults`` change their
defaults in place. Driver groups ([oslo_messaging_rabbit] ...) are still
registered by the driver when the transport is created. The options stay
in the library's namespace for the sample config (``oslo.messaging``).
"""
import oslo_messaging as messaging
from oslo_messaging.rpc import client as rpc_client


def register_opts(conf):
    # parse() registers the transport options (the originals, not copies).
    messaging.TransportURL.parse(conf, "fake:/")
    conf.register_opts(rpc_client._client_opts)


def list_opts():
    return {}
