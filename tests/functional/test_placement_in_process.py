"""Keel's Placement client calling the embedded Placement app in-process.

Same app object and middleware as the HTTP port, so the answers -- status,
microversion and request-id headers, JSON errors -- are those over the
socket; the port keeps serving other clients meanwhile.
"""
import uuid

import pytest
import requests

from keel.clients import placement as pl
from keel.clients import wsgi_transport
from tests.fixtures.placement import shared_placement

INVENTORY = {"VCPU": {"total": 8}, "MEMORY_MB": {"total": 4096}}


@pytest.fixture
def in_process():
    handle = shared_placement()
    handle.serve_in_process()
    yield handle
    wsgi_transport.unregister(handle.endpoint)


def test_same_answers_in_process_as_over_http(in_process):
    endpoint = in_process.endpoint
    assert wsgi_transport.adapter_for(endpoint + "/resource_providers")
    client = pl.PlacementClient(pl.adapter_for_endpoint(endpoint))
    rp = str(uuid.uuid4())
    assert client.get_provider(None, rp) is None            # 404
    created = client.create_provider(None, rp, "inproc-" + rp)
    assert created["uuid"] == rp
    gen = client.put_inventories(None, rp, INVENTORY,
                                 created["generation"])
    with pytest.raises(pl.GenerationConflict):              # 409
        client.put_inventories(None, rp, INVENTORY, gen - 1)
    resp = client.request(None, "GET", "/resource_providers?uuid=" + rp,
                          "1.14")
    assert resp.status_code == 200
    assert resp.headers["openstack-api-version"] == "placement 1.14"
    assert resp.headers["x-openstack-request-id"].startswith("req-")
    assert [p["uuid"] for p in resp.json()["resource_providers"]] == [rp]
    # The port still serves outside clients, from the same database.
    over_http = requests.get(
        endpoint + "/resource_providers/%s/inventories" % rp,
        headers={"OpenStack-API-Version": "placement 1.14",
                 "X-Auth-Token": "admin"}, timeout=10)
    assert over_http.status_code == 200
    assert over_http.json()["resource_provider_generation"] == gen
    bad = client.request(None, "GET", "/resource_providers?bogus=1", "1.14")
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["status"] == 400
