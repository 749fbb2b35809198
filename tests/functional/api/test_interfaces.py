"""os-interface end to end: API -> compute attach_interface (RPC call) /
detach_interface (cast) -> network API (Neutron simulator) and the fake
virt driver, in the one-process cloud; and without Neutron (the local
network API)."""
import pytest
import requests

from keel.clients import neutron as neutron_client
from keel.conf import CONF
from keel.notifications.testing import notification_capture  # noqa: F401
from tests.fixtures import neutron_sim
from tests.functional.api import test_server_power as power
from tests.functional.api.test_server_power import cloud  # noqa: F401
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import call

PROJECT = power.PROJECT


@pytest.fixture
def neutron(cloud):  # noqa: F811
    sim = neutron_sim.NeutronSim().serve()
    CONF.set_override("endpoint_override", sim.endpoint, group="neutron")
    CONF.set_override("http_retries", 0, group="neutron")
    neutron_client.reset()
    # The compute picks its network API once (configuration is static in
    # a deployment): make it pick again for and after this test.
    power.compute(cloud)._network_api = None
    yield sim
    sim.stop()
    CONF.clear_override("endpoint_override", group="neutron")
    CONF.clear_override("http_retries", group="neutron")
    neutron_client.reset()
    power.compute(cloud)._network_api = None


def req(cloud, u, method="GET", body=None, version="2.70", port=None):  # noqa: F811
    path = f"/v2.1/servers/{u}/os-interface"
    if port:
        path += "/" + port
    return call(cloud.app, path, method=method, body=body,
                headers={"OpenStack-API-Version": f"compute {version}"})


def user_port(neutron, net):
    resp = requests.post(f"{neutron.endpoint}/v2.0/ports", json={
        "port": {"network_id": net["id"], "tenant_id": PROJECT}}, timeout=5)
    assert resp.status_code == 201, resp.text
    return resp.json()["port"]


def guest_vifs(cloud, u):  # noqa: F811
    return set(power.driver(cloud)._instances[u].vifs)


def cached_ports(cloud, u):  # noqa: F811
    return [vif["id"] for vif in power.read(cloud, u).info_cache.network_info]


def test_attach_network_and_port_list_show_detach(
        cloud, neutron, notification_capture):  # noqa: F811
    u = power.server(cloud)
    net = neutron.add_network("private", PROJECT, cidr="10.2.0.0/24")
    resp = req(cloud, u, "POST", {"interfaceAttachment": {
        "net_id": net["id"], "tag": "data",
        "fixed_ips": [{"ip_address": "10.2.0.50"}]}})
    assert resp.status_int == 200, resp.text
    att = resp.json["interfaceAttachment"]
    port_id = att["port_id"]
    assert att["net_id"] == net["id"] and att["tag"] == "data"
    assert att["fixed_ips"][0]["ip_address"] == "10.2.0.50"
    assert neutron.ports[port_id]["device_id"] == u
    assert neutron.ports[port_id]["binding:host_id"] == cloud.hosts[0]
    assert port_id in guest_vifs(cloud, u)
    assert cached_ports(cloud, u) == [port_id]
    notification_capture.wait_for("instance.interface_attach.end")

    mine = user_port(neutron, net)
    second = req(cloud, u, "POST", {"interfaceAttachment": {
        "port_id": mine["id"]}}, version="2.1")
    assert second.status_int == 200, second.text
    assert "tag" not in second.json["interfaceAttachment"]
    listed = req(cloud, u).json["interfaceAttachments"]
    assert {a["port_id"]: a["tag"] for a in listed} == {
        port_id: "data", mine["id"]: None}
    shown = req(cloud, u, port=mine["id"]).json["interfaceAttachment"]
    assert shown["mac_addr"] == mine["mac_address"]
    # The addresses show in the server without asking Neutron again.
    addrs = call(cloud.app, f"/v2.1/servers/{u}").json["server"]["addresses"]
    assert [a["addr"] for a in addrs["private"]][0] == "10.2.0.50"

    assert req(cloud, u, "DELETE", port=port_id).status_int == 202
    assert wait_for(lambda: port_id not in neutron.ports)
    assert wait_for(lambda: cached_ports(cloud, u) == [mine["id"]])
    assert port_id not in guest_vifs(cloud, u)
    notification_capture.wait_for("instance.interface_detach.end")
    # The user's own port is kept, only released.
    assert req(cloud, u, "DELETE", port=mine["id"]).status_int == 202
    assert wait_for(lambda: neutron.ports[mine["id"]]["device_id"] == "")
    assert wait_for(lambda: req(cloud, u).json == {
        "interfaceAttachments": []})
    assert wait_for(lambda: ("detach_interface", [
        ("compute_detach_interface", "Success")]) in power.actions(cloud, u))


def test_refusals_use_novas_answers(cloud, neutron):  # noqa: F811
    u = power.server(cloud)
    net = neutron.add_network("private", PROJECT, cidr="10.3.0.0/24")
    both = req(cloud, u, "POST", {"interfaceAttachment": {
        "net_id": net["id"], "port_id": net["id"]}})
    assert both.json["badRequest"]["message"] == \
        "Must not input both network_id and port_id"
    ip_only = req(cloud, u, "POST", {"interfaceAttachment": {
        "fixed_ips": [{"ip_address": "10.3.0.9"}]}})
    assert ip_only.json["badRequest"]["message"] == \
        "Must input network_id when request IP address"
    assert req(cloud, u, "POST", {"interfaceAttachment": {
        "net_id": net["id"], "tag": "x"}}, version="2.48").status_int == 400
    unknown = "0b5e4c3a-1111-4222-8333-444455556666"
    assert req(cloud, u, "POST", {"interfaceAttachment": {
        "port_id": unknown}}).status_int == 404
    assert req(cloud, u, port=unknown).status_int == 404
    assert req(cloud, u, "DELETE", port=unknown).status_int == 404
    # Another server's port is not this one's.
    other = user_port(neutron, net)
    resp = req(cloud, u, port=other["id"])
    assert resp.status_int == 404
    assert resp.json["itemNotFound"]["message"] == (
        f"Instance {u} does not have a port with id {other['id']}")
    # A port another server uses: Nova's 409; another project's: 400.
    used = requests.post(f"{neutron.endpoint}/v2.0/ports", json={"port": {
        "network_id": net["id"], "tenant_id": PROJECT,
        "device_id": "a-different-server"}}, timeout=5).json()["port"]
    in_use = req(cloud, u, "POST", {"interfaceAttachment": {
        "port_id": used["id"]}})
    assert in_use.status_int == 409, in_use.text
    theirs = requests.post(f"{neutron.endpoint}/v2.0/ports", json={"port": {
        "network_id": net["id"], "tenant_id": "other"}},
        timeout=5).json()["port"]
    assert req(cloud, u, "POST", {"interfaceAttachment": {
        "port_id": theirs["id"]}}).status_int == 400
    paused = power.server(cloud, vm_state="error")
    bad = req(cloud, paused, "POST", {"interfaceAttachment": {
        "net_id": net["id"]}})
    assert bad.status_int == 409
    assert bad.json["conflictingRequest"]["message"] == (
        f"Cannot 'attach_interface' instance {paused} while it is in "
        f"vm_state error")
    # Nothing leaked in Neutron from the refusals.
    assert not [p for p in neutron.ports.values()
                if p["device_id"] in (u, paused)]


def test_driver_failure_releases_the_port(cloud, neutron):  # noqa: F811
    u = power.server(cloud)
    net = neutron.add_network("private", PROJECT, cidr="10.4.0.0/24")
    power.driver(cloud).inject_failure("attach_interface", instance_uuid=u)
    try:
        resp = req(cloud, u, "POST", {"interfaceAttachment": {
            "net_id": net["id"]}})
    finally:
        power.driver(cloud).clear_failures("attach_interface")
    assert resp.status_int == 500
    assert resp.json["computeFault"]["message"] == (
        f"Failed to attach network adapter device to {u}")
    assert not [p for p in neutron.ports.values() if p["device_id"] == u]
    assert cached_ports(cloud, u) == []
    assert power.faults(cloud, u)


def test_without_neutron(cloud):  # noqa: F811
    u = power.server(cloud)
    assert req(cloud, u).json == {"interfaceAttachments": []}
    missing = "0b5e4c3a-1111-4222-8333-444455556667"
    assert req(cloud, u, port=missing).status_int == 404
    assert req(cloud, u, "POST", {"interfaceAttachment": {
        "net_id": missing}}).status_int == 404
    assert req(cloud, u, "DELETE", port=missing).status_int == 404
