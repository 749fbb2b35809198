"""Nova's network model: the VIF list cached in
``instance_info_caches.network_info`` and passed to virt drivers.

Every class is a plain ``dict`` (or ``list``) so the JSON written here is the
JSON Nova writes, key for key: a deployment can switch between Nova and keel
on the same cell database and read each other's caches. Values a class does
not name go under ``meta``, as in Nova.
"""
import ipaddress

from oslo_serialization import jsonutils

# VIF types and vnic types Nova writes (subset used by keel's drivers).
VIF_TYPE_OVS = "ovs"
VIF_TYPE_BRIDGE = "bridge"
VIF_TYPE_OTHER = "other"
VIF_TYPE_UNBOUND = "unbound"
VIF_TYPE_BINDING_FAILED = "binding_failed"
VNIC_TYPE_NORMAL = "normal"
VIF_DETAILS_PORT_FILTER = "port_filter"
VIF_DETAILS_OVS_HYBRID_PLUG = "ovs_hybrid_plug"


def _version(address):
    try:
        return ipaddress.ip_network(address, strict=False).version
    except ValueError:
        return None


class Model(dict):
    """Base: a dict with a ``meta`` sub-dict for everything unnamed."""

    def __init__(self, **kwargs):
        super().__init__()
        self["meta"] = dict(kwargs.pop("meta", None) or {})
        self["meta"].update(kwargs)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, dict.__repr__(self))

    def get_meta(self, key, default=None):
        return self["meta"].get(key, default)

    @classmethod
    def _rest(cls, data, names):
        """The keys of ``data`` a constructor does not name (kept as meta)."""
        extra = dict(data.get("meta") or {})
        extra.update({k: v for k, v in data.items()
                      if k not in names and k != "meta"})
        return extra


class IP(Model):
    def __init__(self, address=None, type=None, version=None, **kwargs):
        super().__init__(**kwargs)
        self["address"] = address
        self["type"] = type
        self["version"] = version or (_version(address) if address else None)

    def is_in_subnet(self, subnet):
        if not self["address"] or not subnet.get("cidr"):
            return False
        return (ipaddress.ip_address(self["address"]) in
                ipaddress.ip_network(subnet["cidr"], strict=False))

    @classmethod
    def hydrate(cls, ip):
        if ip is None:
            return None
        return cls(**dict(ip))


class FixedIP(IP):
    """A port's fixed address, with the floating addresses NATed to it."""

    def __init__(self, floating_ips=None, **kwargs):
        kwargs.setdefault("type", "fixed")
        super().__init__(**kwargs)
        self["floating_ips"] = [IP.hydrate(f) if not isinstance(f, IP) else f
                                for f in (floating_ips or [])]

    def add_floating_ip(self, floating_ip):
        if not isinstance(floating_ip, IP):
            floating_ip = IP(address=floating_ip, type="floating")
        if floating_ip not in self["floating_ips"]:
            self["floating_ips"].append(floating_ip)

    def floating_ip_addresses(self):
        return [f["address"] for f in self["floating_ips"]]

    @classmethod
    def hydrate(cls, ip):
        data = dict(ip)
        return cls(floating_ips=[IP.hydrate(f) for f in
                                 data.pop("floating_ips", None) or []],
                   **data)


class Route(Model):
    def __init__(self, cidr=None, gateway=None, interface=None, **kwargs):
        super().__init__(**kwargs)
        self["cidr"] = cidr
        self["gateway"] = gateway
        self["interface"] = interface

    @classmethod
    def hydrate(cls, route):
        data = dict(route)
        data["gateway"] = IP.hydrate(data.get("gateway"))
        return cls(**data)


class Subnet(Model):
    def __init__(self, cidr=None, dns=None, gateway=None, ips=None,
                 routes=None, version=None, **kwargs):
        super().__init__(**kwargs)
        self["cidr"] = cidr
        self["dns"] = list(dns or [])
        self["gateway"] = gateway
        self["ips"] = list(ips or [])
        self["routes"] = list(routes or [])
        self["version"] = version or (_version(cidr) if cidr else None)

    def add_ip(self, ip):
        if ip not in self["ips"]:
            self["ips"].append(ip)

    def as_netaddr(self):
        return ipaddress.ip_network(self["cidr"], strict=False)

    @classmethod
    def hydrate(cls, subnet):
        data = dict(subnet)
        data["dns"] = [IP.hydrate(d) for d in data.get("dns") or []]
        data["ips"] = [FixedIP.hydrate(i) for i in data.get("ips") or []]
        data["routes"] = [Route.hydrate(r) for r in data.get("routes") or []]
        data["gateway"] = IP.hydrate(data.get("gateway"))
        return cls(**data)


class Network(Model):
    def __init__(self, id=None, bridge=None, label=None, subnets=None,
                 **kwargs):
        super().__init__(**kwargs)
        self["id"] = id
        self["bridge"] = bridge
        self["label"] = label
        self["subnets"] = list(subnets or [])

    def add_subnet(self, subnet):
        if subnet not in self["subnets"]:
            self["subnets"].append(subnet)

    @classmethod
    def hydrate(cls, network):
        if network is None:
            return None
        data = dict(network)
        data["subnets"] = [Subnet.hydrate(s)
                           for s in data.get("subnets") or []]
        return cls(**data)


_VIF_KEYS = ("id", "address", "network", "type", "details", "devname",
             "ovs_interfaceid", "qbh_params", "qbg_params", "active",
             "vnic_type", "profile", "preserve_on_delete", "delegate_create")


class VIF(Model):
    """One port of the instance: its MAC, binding and network."""

    def __init__(self, id=None, address=None, network=None, type=None,
                 details=None, devname=None, ovs_interfaceid=None,
                 qbh_params=None, qbg_params=None, active=False,
                 vnic_type=VNIC_TYPE_NORMAL, profile=None,
                 preserve_on_delete=False, delegate_create=False, **kwargs):
        super().__init__(**kwargs)
        self["id"] = id
        self["address"] = address
        self["network"] = network
        self["type"] = type
        self["details"] = dict(details or {})
        self["devname"] = devname
        self["ovs_interfaceid"] = ovs_interfaceid
        self["qbh_params"] = qbh_params
        self["qbg_params"] = qbg_params
        self["active"] = active
        self["vnic_type"] = vnic_type
        self["profile"] = dict(profile or {})
        self["preserve_on_delete"] = preserve_on_delete
        self["delegate_create"] = delegate_create

    def __eq__(self, other):
        # Nova compares VIFs by their named keys only.
        return all(self.get(k) == other.get(k) for k in _VIF_KEYS)

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def fixed_ips(self):
        network = self.get("network") or {}
        return [ip for subnet in network.get("subnets") or []
                for ip in subnet.get("ips") or []]

    def floating_ips(self):
        return [f for ip in self.fixed_ips()
                for f in ip.get("floating_ips") or []]

    def labeled_ips(self):
        """``{network_id, network_label, ips}`` or None without a network."""
        network = self.get("network")
        if not network:
            return None
        return {"network_id": network.get("id"),
                "network_label": network.get("label"),
                "ips": [dict(ip, network_label=network.get("label"))
                        for ip in self.fixed_ips()]}

    def has_bind_time_event(self, migration=None):
        return False

    @classmethod
    def hydrate(cls, vif):
        data = dict(vif)
        data["network"] = Network.hydrate(data.get("network"))
        return cls(**data)


class NetworkInfo(list):
    """The instance's VIFs, in port order."""

    def fixed_ips(self):
        return [ip for vif in self for ip in vif.fixed_ips()]

    def floating_ips(self):
        return [f for vif in self for f in vif.floating_ips()]

    def wait(self, do_raise=True):
        # Nova's async variant waits here; allocation is synchronous in keel.
        return None

    def json(self):
        return jsonutils.dumps(self)

    @classmethod
    def hydrate(cls, network_info):
        if isinstance(network_info, (str, bytes)):
            network_info = jsonutils.loads(network_info or "[]")
        return cls(VIF.hydrate(vif) for vif in network_info or [])


def addresses_by_label(network_info):
    """``{label: [(ip dict, vif)]}``: the fixed then floating addresses of
    each network, in VIF order (what the servers API renders)."""
    out = {}
    for vif in network_info or []:
        network = vif.get("network") or {}
        label = network.get("label")
        if label is None:
            continue
        entries = out.setdefault(label, [])
        for ip in vif.fixed_ips():
            entries.append((ip, vif))
            for floating in ip.get("floating_ips") or []:
                entries.append((floating, vif))
    return out
