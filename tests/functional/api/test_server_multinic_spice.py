"""addFixedIp / removeFixedIp (2.1-2.43) and os-getSPICEConsole (2.1-2.5)
end to end: the samples' bodies, the compute's network calls, Nova's
refusals and policies."""
import pytest

from keel.api import deploy
from keel.conf import CONF
from tests.functional.api.test_server_power import _token
from tests.functional.api.test_server_power import _validate
from tests.functional.api.test_server_power import action
from tests.functional.api.test_server_power import cloud  # noqa: F401
from tests.functional.api.test_server_power import compute
from tests.functional.api.test_server_power import driver
from tests.functional.api.test_server_power import faults
from tests.functional.api.test_server_power import PROJECT
from tests.functional.api.test_server_power import read
from tests.functional.api.test_server_power import server
from tests.functional.api.test_server_power import USER
from tests.functional.fixtures_services import wait_for
from tests.unit.api.conftest import sample

TOKEN = f"{USER}:{PROJECT}"
ADD = "os-multinic/multinic-add-fixed-ip-req.json"
REMOVE = "os-multinic/multinic-remove-fixed-ip-req.json"


def _app(roles):
    CONF.set_override("development_roles", roles, group="api")
    try:
        return deploy.deploy(CONF)
    finally:
        CONF.clear_override("development_roles", group="api")


class _Network:
    """The compute's network API, recording the multinic calls."""

    def __init__(self, real):
        self.real, self.calls = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def add_fixed_ip_to_instance(self, context, instance, network_id):
        self.calls.append(("add", instance.uuid, network_id))
        return []

    def remove_fixed_ip_from_instance(self, context, instance, address):
        self.calls.append(("remove", instance.uuid, address))
        return []


@pytest.fixture
def network(cloud):  # noqa: F811
    mgr = compute(cloud)
    real = mgr.network_api
    fake = _Network(real)
    mgr._network_api = fake
    yield fake
    mgr._network_api = real


@pytest.mark.parametrize("version", ["2.1", "2.43"])
def test_add_and_remove_fixed_ip_with_the_samples(cloud, network,  # noqa
                                                  version):
    u = server(cloud)
    member = _app(["member", "reader"])
    injected = []
    drv = driver(cloud)
    drv.inject_network_info = lambda inst, nw: injected.append(inst.uuid)
    try:
        resp = action(member, u, sample(ADD), version=version, token=TOKEN)
        assert resp.status_int == 202, resp.text
        assert resp.body == b""
        resp = action(member, u, sample(REMOVE), version=version,
                      token=TOKEN)
        assert resp.status_int == 202, resp.text
        assert wait_for(lambda: len(network.calls) == 2, timeout=10)
    finally:
        del drv.inject_network_info
    assert network.calls == [
        ("add", u, sample(ADD)["addFixedIp"]["networkId"]),
        ("remove", u, "10.0.0.4")]
    assert wait_for(lambda: injected == [u, u], timeout=10)


def test_multinic_ends_at_2_43_and_refusals(cloud, network):  # noqa: F811
    u = server(cloud)
    resp = action(cloud.app, u, sample(ADD), version="2.44")
    assert resp.status_int == 404
    for body in ({"addFixedIp": {}}, {"addFixedIp": {"networkId": ""}},
                 {"addFixedIp": {"networkId": "x" * 37}},
                 {"removeFixedIp": {"address": "not-an-ip"}},
                 {"removeFixedIp": {}}):
        assert action(cloud.app, u, body,
                      version="2.1").status_int == 400, body
    reader = _app(["reader"])
    resp = action(reader, u, sample(ADD), version="2.1", token=TOKEN)
    assert resp.status_int == 403
    assert resp.json["forbidden"]["message"] == (
        "Policy doesn't allow os_compute_api:os-multinic:add to be "
        "performed.")
    member = _app(["member", "reader"])
    assert action(member, u, sample(REMOVE), version="2.1",
                  token=f"{USER}:elsewhere").status_int == 404
    locked = server(cloud, locked=True)
    resp = action(member, locked, sample(REMOVE), version="2.1",
                  token=TOKEN)
    assert resp.status_int == 409
    assert network.calls == []


def test_network_refusal_is_a_fault_of_the_server(cloud):  # noqa: F811
    # The local network API has no networks: the cast fails on the compute.
    u = server(cloud)
    resp = action(cloud.app, u, {"removeFixedIp": {"address": "10.0.0.9"}},
                  version="2.1")
    assert resp.status_int == 202
    assert wait_for(lambda: faults(cloud, u), timeout=10)
    assert faults(cloud, u)[0].message == \
        f"Instance {u} does not have fixed IP '10.0.0.9'."
    assert read(cloud, u).vm_state == "active"


# -- os-getSPICEConsole -------------------------------------------------------

def test_spice_console_with_the_samples(cloud):  # noqa: F811
    u = server(cloud)
    body = sample("os-remote-consoles/get-spice-console-post-req.json")
    expected = sample("os-remote-consoles/get-spice-console-post-resp.json")
    CONF.set_override("enabled", True, "spice")
    try:
        resp = action(cloud.app, u, body, version="2.1")
    finally:
        CONF.clear_override("enabled", "spice")
    assert resp.status_int == 200, resp.text
    assert set(resp.json) == set(expected)
    assert set(resp.json["console"]) == set(expected["console"])
    assert resp.json["console"]["type"] == "spice-html5"
    url = resp.json["console"]["url"]
    assert url.startswith(CONF.spice.html5proxy_base_url + "?token=")
    auth = _validate(cloud, _token(url))
    assert (auth.instance_uuid, auth.console_type) == (u, "spice-html5")


def test_spice_console_refusals(cloud):  # noqa: F811
    u = server(cloud)
    body = {"os-getSPICEConsole": {"type": "spice-html5"}}
    # [spice]/enabled is off by default, as in Nova.
    resp = action(cloud.app, u, body, version="2.1")
    assert resp.status_int == 400
    assert resp.json["badRequest"]["message"] == \
        "Unavailable console type spice-html5."
    assert action(cloud.app, u, body, version="2.6").status_int == 404
    assert action(cloud.app, u, {"os-getSPICEConsole": {"type": "novnc"}},
                  version="2.1").status_int == 400
    reader = _app(["reader"])
    assert action(reader, u, body, version="2.1",
                  token=TOKEN).status_int == 403
    CONF.set_override("enabled", True, "spice")
    try:
        drv = driver(cloud)
        drv.get_spice_console = _not_implemented
        try:
            resp = action(cloud.app, u, body, version="2.1")
        finally:
            del drv.get_spice_console
        assert resp.status_int == 501
        inst = read(cloud, u)
        inst.host = None
        inst.save()
        assert action(cloud.app, u, body, version="2.1").status_int == 409
    finally:
        CONF.clear_override("enabled", "spice")


def _not_implemented(context, instance):
    raise NotImplementedError()
