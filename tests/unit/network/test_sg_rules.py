"""Security group rules: Nova's checks, and the Nova <-> Neutron shapes."""
import pytest

from keel import exception
from keel.network import sg_rules


def test_cidr_rule_to_neutron_and_back():
    values = sg_rules.new_ingress_rule("tcp", "22", "22", cidr="fd00::/64")
    body = sg_rules.to_neutron(dict(values, parent_group_id="g"))
    assert body == {"direction": "ingress", "protocol": "tcp",
                    "remote_ip_prefix": "fd00::/64", "ethertype": "IPv6",
                    "security_group_id": "g", "remote_group_id": None,
                    "port_range_min": 22, "port_range_max": 22}
    back = sg_rules.from_neutron(dict(body, id="r"))
    assert (back["from_port"], back["to_port"], back["cidr"]) == (
        22, 22, "fd00::/64")


def test_group_rule_opens_all_ports_and_icmp_any():
    values = sg_rules.new_ingress_rule("udp", None, None, group_id="src")
    assert (values["from_port"], values["to_port"]) == (1, 65535)
    icmp = sg_rules.new_ingress_rule("icmp", None, None, group_id="src")
    body = sg_rules.to_neutron(dict(icmp, parent_group_id="g"))
    assert "port_range_min" not in body and body["ethertype"] == "IPv4"
    # Neutron's port-less TCP rule reads back as the full range.
    assert sg_rules.from_neutron({
        "id": "r", "security_group_id": "g", "protocol": "tcp",
        "port_range_min": None, "port_range_max": None,
        "remote_ip_prefix": None, "remote_group_id": None})["to_port"] == \
        65535


@pytest.mark.parametrize("args,error", [
    (("tcp", "a", "b"), exception.InvalidInput),
    (("icmp", 300, 0), exception.InvalidPortRange),
    (("tcp", 0, 10), exception.InvalidPortRange),
    (("gre", 1, 2), exception.InvalidIpProtocol),
])
def test_invalid_rules(args, error):
    with pytest.raises(error):
        sg_rules.new_ingress_rule(*args, cidr="10.0.0.0/8")


def test_group_dict_keeps_ingress_only_and_rule_exists():
    group = sg_rules.group_from_neutron({
        "id": "g", "name": "web", "description": "", "tenant_id": "p",
        "security_group_rules": [
            {"id": "e", "direction": "egress", "security_group_id": "g",
             "protocol": None, "port_range_min": None,
             "port_range_max": None, "remote_ip_prefix": None,
             "remote_group_id": None},
            {"id": "i", "direction": "ingress", "security_group_id": "g",
             "protocol": "tcp", "port_range_min": 80,
             "port_range_max": 80, "remote_ip_prefix": "0.0.0.0/0",
             "remote_group_id": None}]})
    assert [r["id"] for r in group["rules"]] == ["i"]
    same = sg_rules.new_ingress_rule("tcp", 80, 80, cidr="0.0.0.0/0")
    assert sg_rules.rule_exists(group, same)
    assert not sg_rules.rule_exists(
        group, sg_rules.new_ingress_rule("tcp", 81, 81, cidr="0.0.0.0/0"))
