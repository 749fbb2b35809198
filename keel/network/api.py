"""Which network API this deployment uses.

Neutron when ``[neutron]`` says how to reach it (an ``auth_type`` or an
endpoint), else the local API that needs no outside service.
"""
from keel.clients import neutron as neutron_client


def is_neutron(conf=None):
    if conf is None:
        from keel.conf import CONF as conf
    return neutron_client.is_configured(conf)


def get_api(conf=None):
    if conf is None:
        from keel.conf import CONF as conf
    if neutron_client.is_configured(conf):
        from keel.network import neutron
        return neutron.NeutronAPI(conf)
    from keel.network import local
    return local.LocalNetworkAPI()


API = get_api
