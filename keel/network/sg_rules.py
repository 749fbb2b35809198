"""Security group rules as the compute API speaks them, checked the way
Nova checks them, and converted to and from Neutron's rules.

Nova's API knows only ingress rules: ``ip_protocol``/``from_port``/
``to_port`` with a ``cidr`` or a source ``group_id``.
"""
import ipaddress
import urllib.parse

from oslo_utils import uuidutils

from keel import exception

_PORT_PROTOCOLS = ("TCP", "UDP")


def validate_id(value):
    """Neutron's group and rule ids are UUIDs (else 400, Nova's words)."""
    if not uuidutils.is_uuid_like(value):
        raise exception.Invalid(message="Security group id should be uuid")
    return value


def validate_property(value, name):
    """A group's name or description: a string of at most 255 characters
    (Nova's check_string_length messages; empty is allowed, as Neutron
    allows it)."""
    if not isinstance(value, str):
        raise exception.InvalidInput(
            reason="%s is not a string or unicode" % name)
    if len(value) > 255:
        raise exception.InvalidInput(
            reason="%s has more than 255 characters." % name)
    return value


def parse_cidr(cidr):
    if not cidr:
        return "0.0.0.0/0"
    try:
        cidr = urllib.parse.unquote(str(cidr))
        ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        raise exception.InvalidCidr(cidr=cidr)
    if "/" not in cidr:
        raise exception.InvalidCidr(cidr=cidr)
    return cidr


def new_ingress_rule(ip_protocol, from_port, to_port, cidr=None,
                     group_id=None):
    """Rule values, or None when a CIDR rule lacks its protocol/ports."""
    values = {}
    if group_id:
        values["group_id"] = group_id
        # A rule from a source group opens every port when none is given.
        upper = ip_protocol.upper() if ip_protocol else ""
        if from_port is None and to_port is None:
            if upper == "ICMP":
                from_port = to_port = -1
            elif upper in _PORT_PROTOCOLS:
                from_port, to_port = 1, 65535
    elif cidr:
        values["cidr"] = cidr
    if ip_protocol and from_port is not None and to_port is not None:
        ip_protocol = str(ip_protocol)
        try:
            from_port, to_port = int(from_port), int(to_port)
        except (TypeError, ValueError):
            if ip_protocol.upper() == "ICMP":
                raise exception.InvalidInput(
                    reason="Type and Code must be integers for ICMP "
                           "protocol type")
            raise exception.InvalidInput(
                reason="To and From ports must be integers")
        upper = ip_protocol.upper()
        if upper not in ("TCP", "UDP", "ICMP"):
            raise exception.InvalidIpProtocol(protocol=ip_protocol)
        if upper in _PORT_PROTOCOLS and from_port > to_port:
            raise exception.InvalidPortRange(
                from_port=from_port, to_port=to_port,
                msg="Former value cannot be greater than the later")
        if upper in _PORT_PROTOCOLS and (from_port < 1 or to_port > 65535):
            raise exception.InvalidPortRange(
                from_port=from_port, to_port=to_port,
                msg="Valid %s ports should be between 1-65535" % upper)
        if upper == "ICMP" and not (-1 <= from_port <= 255 and
                                    -1 <= to_port <= 255):
            raise exception.InvalidPortRange(
                from_port=from_port, to_port=to_port,
                msg="For ICMP, the type:code must be valid")
        values.update(protocol=ip_protocol, from_port=from_port,
                      to_port=to_port)
    elif cidr:
        return None
    return values


def rule_exists(group, rule):
    """Whether ``group`` (Nova's dict) already has this rule."""
    keys = ("group_id", "cidr", "from_port", "to_port", "protocol")
    return any(all(old.get(k) == rule.get(k) for k in keys)
               for old in group.get("rules") or [])


def check_prefix(cidr):
    """A /0 is only allowed for the any-address network."""
    net, _, prefix = cidr.partition("/")
    if net not in ("0.0.0.0", "::") and prefix == "0":
        raise exception.Invalid(
            message="Bad prefix for network in cidr %s" % cidr)


def to_neutron(rule):
    """Nova rule values → Neutron's security_group_rule body."""
    body = {"direction": "ingress", "protocol": rule.get("protocol"),
            "remote_ip_prefix": rule.get("cidr"),
            "security_group_id": rule["parent_group_id"],
            "remote_group_id": rule.get("group_id")}
    cidr = rule.get("cidr")
    body["ethertype"] = ("IPv6" if cidr and
                         ipaddress.ip_network(cidr, strict=False).version
                         == 6 else "IPv4")
    if rule.get("from_port") not in (None, -1):
        body["port_range_min"] = rule["from_port"]
    if rule.get("to_port") not in (None, -1):
        body["port_range_max"] = rule["to_port"]
    return body


def from_neutron(rule):
    """Neutron rule → Nova's rule dict."""
    out = {"id": rule["id"], "parent_group_id": rule["security_group_id"],
           "protocol": rule.get("protocol"),
           "group_id": rule.get("remote_group_id"),
           "cidr": rule.get("remote_ip_prefix") or "0.0.0.0/0"}
    lo, hi = rule.get("port_range_min"), rule.get("port_range_max")
    if out["protocol"] and lo is None and hi is None:
        if out["protocol"].upper() in _PORT_PROTOCOLS:
            lo, hi = 1, 65535
        else:
            lo, hi = -1, -1
    out["from_port"], out["to_port"] = lo, hi
    return out


def group_from_neutron(group):
    """Neutron group → Nova's group dict (ingress rules only)."""
    return {"id": group["id"], "name": group.get("name"),
            "description": group.get("description"),
            "project_id": group.get("tenant_id", group.get("project_id")),
            "rules": [from_neutron(r) for r in
                      group.get("security_group_rules") or []
                      if r.get("direction") == "ingress"]}
