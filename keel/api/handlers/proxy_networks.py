"""Nova's network proxies (up to 2.35): os-networks and os-tenant-networks,
read from Neutron. nova-network is gone, so os-networks shows only a
network's id and name (label), every other field null, and the extra
fields only to admins; os-tenant-networks shows id, label and a cidr of
"None" (Nova's str(None)). Without a network service there are no
networks: empty lists and 404s."""
import logging

import webob.exc

from keel.api import wsgi
from keel.api.handlers import proxy_common as common
from keel.clients import neutron as neutron_client
from keel.conf import CONF
from keel.network import api as network_api
from keel.policies import network_proxies as names
from keel import policy

LOG = logging.getLogger(__name__)
MAX = common.MAX_PROXY_VERSION

_FIELDS = ("id", "cidr", "netmask", "gateway", "broadcast", "dns1", "dns2",
           "cidr_v6", "gateway_v6", "label", "netmask_v6")
_ADMIN_FIELDS = ("created_at", "updated_at", "deleted_at", "deleted",
                 "injected", "bridge", "vlan", "vpn_public_address",
                 "vpn_public_port", "vpn_private_address", "dhcp_start",
                 "project_id", "host", "bridge_interface", "multi_host",
                 "priority", "rxtx_base", "mtu", "dhcp_server",
                 "enable_dhcp", "share_address")


def _network_dict(context, net):
    fields = _FIELDS + (_ADMIN_FIELDS if context.is_admin else ())
    body = dict.fromkeys(fields)
    body["id"] = net["id"]
    body["label"] = net.get("name")
    return body


def _tenant_network_dict(net):
    return {"id": net["id"], "cidr": str(net.get("cidr")),
            "label": net.get("name")}


def _list(context):
    if not network_api.is_neutron():
        return []
    return neutron_client.get_client(context).list_networks()


def _get(context, id):
    if network_api.is_neutron():
        try:
            return neutron_client.get_client(context).show_network(id)
        except neutron_client.NeutronClientException as exc:
            if exc.status_code != 404:
                raise
    raise webob.exc.HTTPNotFound(explanation="Network not found")


def _authorize(req, rule):
    policy.authorize(req.context, rule,
                     {"project_id": req.context.project_id})


@wsgi.expose(max_version=MAX, name="networks.index")
def index(req):
    _authorize(req, names.NETWORKS % "list")
    return {"networks": [_network_dict(req.context, n)
                         for n in _list(req.context)]}


@wsgi.expose(max_version=MAX, name="networks.show")
def show(req, id):
    _authorize(req, names.NETWORKS % "view")
    return {"network": _network_dict(req.context, _get(req.context, id))}


def _default_networks(context):
    """[api]/use_neutron_default_nets: a default project's networks too
    (a failure to read them only costs those entries, as in Nova)."""
    if not (CONF.api.use_neutron_default_nets and
            network_api.is_neutron()):
        return []
    try:
        return neutron_client.get_client(context).list_networks(
            tenant_id=CONF.api.neutron_default_tenant_id)
    except neutron_client.NeutronClientException:
        LOG.exception("Failed to get default networks")
        return []


@wsgi.expose(max_version=MAX, name="tenant_networks.index")
def tenant_index(req):
    _authorize(req, names.TENANT_NETWORKS % "list")
    networks = _list(req.context) + _default_networks(req.context)
    return {"networks": [_tenant_network_dict(n) for n in networks]}


@wsgi.expose(max_version=MAX, name="tenant_networks.show")
def tenant_show(req, id):
    _authorize(req, names.TENANT_NETWORKS % "show")
    return {"network": _tenant_network_dict(_get(req.context, id))}


def route_entries():
    return {
        "/os-networks": {"GET": index},
        "/os-networks/{id}": {"GET": show},
        "/os-tenant-networks": {"GET": tenant_index},
        "/os-tenant-networks/{id}": {"GET": tenant_show},
    }
