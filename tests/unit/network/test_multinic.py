"""keel.network.multinic: the Neutron requests of Nova's
add_fixed_ip_to_instance / remove_fixed_ip_from_instance."""
import types

import pytest

from keel import exception
from keel.network import multinic

INSTANCE = types.SimpleNamespace(uuid="u-1", availability_zone="nova")


class _Client:
    def __init__(self, subnets=(), ports=(), fail=()):
        self.subnets, self.ports, self.fail = list(subnets), list(ports), fail
        self.filters, self.updates = [], []

    def list_subnets(self, **filters):
        self.filters.append(("subnets", filters))
        return self.subnets

    def list_ports(self, **filters):
        self.filters.append(("ports", filters))
        return self.ports

    def update_port(self, port_id, body):
        if port_id in self.fail:
            raise RuntimeError("neutron said no")
        self.updates.append((port_id, body))


class _API:
    def __init__(self, client):
        self.client = client

    def _client(self, context):
        return self.client

    def get_instance_nw_info(self, context, instance):
        return ["refreshed"]


def test_add_fixed_ip_takes_one_from_the_networks_subnet():
    client = _Client(subnets=[{"id": "s1"}],
                     ports=[{"id": "p0", "fixed_ips": [
                         {"subnet_id": "s0", "ip_address": "10.0.0.3"}]}])
    assert multinic.add_fixed_ip(_API(client), None, INSTANCE, "n1") == \
        ["refreshed"]
    assert client.filters == [
        ("subnets", {"network_id": "n1"}),
        ("ports", {"device_id": "u-1", "device_owner": "compute:nova",
                   "network_id": "n1"})]
    assert client.updates == [("p0", {"port": {"fixed_ips": [
        {"subnet_id": "s0", "ip_address": "10.0.0.3"},
        {"subnet_id": "s1"}]}})]


def test_add_fixed_ip_without_subnet_or_port_is_network_not_found():
    with pytest.raises(exception.NetworkNotFoundForInstance):
        multinic.add_fixed_ip(_API(_Client()), None, INSTANCE, "n1")
    client = _Client(subnets=[{"id": "s1"}],
                     ports=[{"id": "p0", "fixed_ips": []}], fail={"p0"})
    with pytest.raises(exception.NetworkNotFoundForInstance) as err:
        multinic.add_fixed_ip(_API(client), None, INSTANCE, "n1")
    assert err.value.format_message() == \
        "Network could not be found for instance u-1."


def test_remove_fixed_ip_keeps_the_ports_other_addresses():
    client = _Client(ports=[{"id": "p0", "fixed_ips": [
        {"subnet_id": "s0", "ip_address": "10.0.0.3"},
        {"subnet_id": "s0", "ip_address": "10.0.0.4"}]}])
    assert multinic.remove_fixed_ip(_API(client), None, INSTANCE,
                                    "10.0.0.4") == ["refreshed"]
    assert client.filters == [("ports", {
        "device_id": "u-1", "device_owner": "compute:nova",
        "fixed_ips": "ip_address=10.0.0.4"})]
    assert client.updates == [("p0", {"port": {"fixed_ips": [
        {"subnet_id": "s0", "ip_address": "10.0.0.3"}]}})]


def test_remove_unknown_fixed_ip():
    with pytest.raises(exception.FixedIpNotFoundForInstance) as err:
        multinic.remove_fixed_ip(_API(_Client()), None, INSTANCE, "10.0.0.9")
    assert err.value.format_message() == \
        "Instance u-1 does not have fixed IP '10.0.0.9'."
