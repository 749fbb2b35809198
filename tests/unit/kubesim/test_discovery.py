"""Discovery documents are complete enough for the official client's dynamic layer."""
import json

from kubernetes import client
from kubernetes.dynamic import DynamicClient


def _get(api_client, path):
    resp = api_client.call_api(*api_client.param_serialize("GET", path))
    data = resp.read()
    if resp.status >= 400:
        raise _error(resp.status, data)
    return json.loads(data)


def _error(status, body):
    exc = client.ApiException(status=status)
    exc.body = body
    return exc


def test_core_and_group_discovery(api_client):
    assert client.CoreApi(api_client).get_api_versions().versions == ["v1"]
    groups = {g.name: g for g in client.ApisApi(api_client).get_api_versions().groups}
    for g in ("kubevirt.io", "cdi.kubevirt.io", "snapshot.kubevirt.io", "export.kubevirt.io",
              "subresources.kubevirt.io"):
        assert g in groups
    assert groups["cdi.kubevirt.io"].preferred_version.group_version == "cdi.kubevirt.io/v1beta1"
    core = {r["name"]: r for r in _get(api_client, "/api/v1")["resources"]}
    assert core["pods"]["namespaced"] and not core["nodes"]["namespaced"]
    assert "pods/log" in core and "pods/status" in core and "watch" in core["pods"]["verbs"]
    kvres = {r["name"] for r in _get(api_client, "/apis/kubevirt.io/v1")["resources"]}
    assert {"virtualmachines", "virtualmachineinstances", "virtualmachineinstancemigrations",
            "virtualmachines/status"} <= kvres
    sub = {r["name"] for r in _get(api_client, "/apis/subresources.kubevirt.io/v1")["resources"]}
    assert {"virtualmachines/start", "virtualmachineinstances/vnc"} <= sub


def test_dynamic_client_finds_kubevirt_kinds(api_client, sim):
    dyn = DynamicClient(api_client)
    vms = dyn.resources.get(api_version="kubevirt.io/v1", kind="VirtualMachine")
    assert vms.namespaced and vms.name == "virtualmachines"
    dvs = dyn.resources.get(api_version="cdi.kubevirt.io/v1beta1", kind="DataVolume")
    assert dvs.get(namespace="default").items == []


def test_unknown_paths_are_404_status(api_client):
    for path in ("/apis/nope.io", "/apis/kubevirt.io/v9", "/api/v1/widgets"):
        try:
            _get(api_client, path)
        except client.ApiException as exc:
            assert exc.status == 404
            assert json.loads(exc.body)["kind"] == "Status"
        else:
            raise AssertionError(path)
