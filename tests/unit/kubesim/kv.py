"""Helpers for tests that speak KubeVirt through the official client."""
from kubernetes import client

NS = "default"


def vm_body(name, run_strategy="Manual", data_volume=None, container_disk=None,
            memory="1Gi", cores=1, node_selector=None, labels=None):
    volumes, disks, templates = [], [], []
    if data_volume:
        templates.append({"metadata": {"name": f"{name}-root"},
                          "spec": {"source": data_volume,
                                   "storage": {"resources": {"requests": {"storage": "10Gi"}},
                                               "accessModes": ["ReadWriteMany"]}}})
        volumes.append({"name": "root", "dataVolume": {"name": f"{name}-root"}})
        disks.append({"name": "root", "disk": {"bus": "virtio"}})
    if container_disk:
        volumes.append({"name": "root", "containerDisk": {"image": container_disk}})
        disks.append({"name": "root", "disk": {"bus": "virtio"}})
    spec = {"domain": {"cpu": {"cores": cores}, "memory": {"guest": memory},
                       "devices": {"disks": disks,
                                   "interfaces": [{"name": "default", "masquerade": {}}]}},
            "networks": [{"name": "default", "pod": {}}], "volumes": volumes}
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
            "metadata": {"name": name, "labels": labels or {"app": "keel"}},
            "spec": {"runStrategy": run_strategy, "dataVolumeTemplates": templates,
                     "template": {"metadata": {"labels": {"kubevirt.io/vm": name}},
                                  "spec": spec}}}


def create_vm(custom, name, **kw):
    return custom.create_namespaced_custom_object("kubevirt.io", "v1", NS, "virtualmachines",
                                                  vm_body(name, **kw))


def subresource(api_client, kind, name, action, body=None, method="PUT"):
    """Call a virt-api subresource the way a client without KubeVirt models has to."""
    path = f"/apis/subresources.kubevirt.io/v1/namespaces/{NS}/{kind}/{name}/{action}"
    resp = api_client.call_api(*api_client.param_serialize(
        method, path, body=body if body is not None else {},
        header_params={"Content-Type": "application/json", "Accept": "application/json"}))
    resp.read()
    if not 200 <= resp.status < 300:
        raise client.ApiException(http_resp=resp)
    return resp


def vmi(sim, name):
    return sim.get("VirtualMachineInstance", NS, name)


def vmi_phase(sim, name):
    obj = vmi(sim, name)
    return (obj or {}).get("status", {}).get("phase")


def printable(sim, name):
    return (sim.get("VirtualMachine", NS, name) or {}).get("status", {}).get("printableStatus")
