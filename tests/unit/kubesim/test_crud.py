"""Object store semantics through the official client: metadata, conflicts, patches,
status subresource, finalizers and deletion propagation."""
import json

import pytest
from kubernetes import client

from .kv import NS, create_vm, vm_body

G, V, VMS = "kubevirt.io", "v1", "virtualmachines"


def _status(exc):
    return json.loads(exc.body)


def _secret(name, **labels):
    return client.V1Secret(metadata=client.V1ObjectMeta(name=name, labels=labels or None),
                           string_data={"k": "v"})


def test_create_sets_server_metadata_and_get_returns_it(custom):
    vm = create_vm(custom, "vm1")
    md = vm["metadata"]
    assert md["uid"] and md["creationTimestamp"].endswith("Z")
    assert isinstance(md["resourceVersion"], str) and md["generation"] == 1
    assert md["namespace"] == NS and vm["kind"] == "VirtualMachine"
    got = custom.get_namespaced_custom_object(G, V, NS, VMS, "vm1")
    assert got["metadata"]["uid"] == md["uid"]


def test_resource_versions_increase_globally(core, custom):
    a = core.create_namespaced_secret(NS, _secret("a")).metadata.resource_version
    b = create_vm(custom, "vm1")["metadata"]["resourceVersion"]
    c = core.create_namespaced_secret(NS, _secret("c")).metadata.resource_version
    assert int(a) < int(b) < int(c)
    assert int(core.list_namespaced_secret(NS).metadata.resource_version) >= int(c)


def test_create_twice_is_409_already_exists(custom):
    create_vm(custom, "vm1")
    with pytest.raises(client.ApiException) as err:
        create_vm(custom, "vm1")
    st = _status(err.value)
    assert err.value.status == 409 and st["reason"] == "AlreadyExists"
    assert st["message"] == 'virtualmachines.kubevirt.io "vm1" already exists'


def test_get_missing_is_404_not_found_status(custom, core):
    with pytest.raises(client.ApiException) as err:
        custom.get_namespaced_custom_object(G, V, NS, VMS, "nope")
    st = _status(err.value)
    assert (err.value.status, st["reason"], st["details"]["name"]) == (404, "NotFound", "nope")
    with pytest.raises(client.ApiException) as err:
        core.read_namespaced_secret("nope", NS)
    assert _status(err.value)["message"] == 'secrets "nope" not found'


def test_create_in_missing_namespace_is_404(core):
    with pytest.raises(client.ApiException) as err:
        core.create_namespaced_secret("ghost", _secret("a"))
    assert err.value.status == 404
    assert _status(err.value)["message"] == 'namespaces "ghost" not found'


def test_generate_name_and_invalid_name(core):
    s = core.create_namespaced_secret(NS, client.V1Secret(
        metadata=client.V1ObjectMeta(generate_name="tok-")))
    assert s.metadata.name.startswith("tok-") and len(s.metadata.name) == 9
    with pytest.raises(client.ApiException) as err:
        core.create_namespaced_secret(NS, _secret("Not_Valid"))
    assert err.value.status == 422 and _status(err.value)["reason"] == "Invalid"


def test_replace_with_stale_resource_version_is_409_conflict(custom):
    vm = create_vm(custom, "vm1")
    fresh = dict(vm, spec=dict(vm["spec"], runStrategy="Halted"))
    updated = custom.replace_namespaced_custom_object(G, V, NS, VMS, "vm1", fresh)
    assert int(updated["metadata"]["resourceVersion"]) > int(vm["metadata"]["resourceVersion"])
    assert updated["metadata"]["generation"] == 2
    with pytest.raises(client.ApiException) as err:
        custom.replace_namespaced_custom_object(G, V, NS, VMS, "vm1", vm)   # stale rv
    st = _status(err.value)
    assert err.value.status == 409 and st["reason"] == "Conflict"
    assert "the object has been modified" in st["message"]


def test_custom_resource_update_requires_resource_version(custom):
    vm = create_vm(custom, "vm1")
    del vm["metadata"]["resourceVersion"]
    with pytest.raises(client.ApiException) as err:
        custom.replace_namespaced_custom_object(G, V, NS, VMS, "vm1", vm)
    assert err.value.status == 422


def test_generation_only_moves_on_spec_changes(custom):
    create_vm(custom, "vm1")
    vm = custom.patch_namespaced_custom_object(G, V, NS, VMS, "vm1",
                                               {"metadata": {"labels": {"x": "y"}}})
    assert vm["metadata"]["generation"] == 1 and vm["metadata"]["labels"]["x"] == "y"
    vm = custom.patch_namespaced_custom_object(G, V, NS, VMS, "vm1",
                                               {"spec": {"runStrategy": "Halted"}})
    assert vm["metadata"]["generation"] == 2


def test_noop_update_keeps_resource_version(custom):
    vm = create_vm(custom, "vm1")
    same = custom.patch_namespaced_custom_object(G, V, NS, VMS, "vm1",
                                                 {"metadata": {"labels": {"app": "keel"}}})
    assert same["metadata"]["resourceVersion"] == vm["metadata"]["resourceVersion"]


def test_status_subresource_is_separate_from_main_resource(custom):
    create_vm(custom, "vm1", run_strategy="Halted")
    vm = custom.patch_namespaced_custom_object(G, V, NS, VMS, "vm1",
                                               {"status": {"printableStatus": "Hacked"}})
    assert vm.get("status", {}).get("printableStatus") != "Hacked"
    vm = custom.patch_namespaced_custom_object_status(
        G, V, NS, VMS, "vm1", {"status": {"printableStatus": "Custom"},
                               "spec": {"runStrategy": "Always"}})
    assert vm["status"]["printableStatus"] == "Custom"
    assert vm["spec"]["runStrategy"] == "Halted"
    assert vm["metadata"]["generation"] == 1


def test_merge_patch_deletes_with_null_and_replaces_lists(custom):
    create_vm(custom, "vm1", labels={"a": "1", "b": "2"})
    vm = custom.patch_namespaced_custom_object(
        G, V, NS, VMS, "vm1", {"metadata": {"labels": {"a": None}},
                               "spec": {"template": {"spec": {"networks": []}}}})
    assert vm["metadata"]["labels"] == {"b": "2"}
    assert vm["spec"]["template"]["spec"]["networks"] == []
    assert vm["spec"]["template"]["spec"]["domain"]["memory"]["guest"] == "1Gi"


def test_json_patch_ops_and_failed_test_is_422(custom, api_client):
    create_vm(custom, "vm1")
    ops = [{"op": "test", "path": "/spec/runStrategy", "value": "Manual"},
           {"op": "replace", "path": "/spec/runStrategy", "value": "Halted"},
           {"op": "add", "path": "/metadata/labels/new~1key", "value": "v"},
           {"op": "remove", "path": "/metadata/labels/app"}]
    vm = custom.patch_namespaced_custom_object(G, V, NS, VMS, "vm1", ops,
                                               _content_type="application/json-patch+json")
    assert vm["spec"]["runStrategy"] == "Halted"
    assert vm["metadata"]["labels"] == {"new/key": "v"}
    with pytest.raises(client.ApiException) as err:
        custom.patch_namespaced_custom_object(
            G, V, NS, VMS, "vm1", [{"op": "test", "path": "/spec/runStrategy",
                                    "value": "Manual"}],
            _content_type="application/json-patch+json")
    assert err.value.status == 422


def test_patch_carrying_stale_resource_version_conflicts(custom):
    vm = create_vm(custom, "vm1")
    custom.patch_namespaced_custom_object(G, V, NS, VMS, "vm1", {"spec": {"runStrategy": "Always"}})
    with pytest.raises(client.ApiException) as err:
        custom.patch_namespaced_custom_object(
            G, V, NS, VMS, "vm1", {"metadata": {"resourceVersion":
                                                vm["metadata"]["resourceVersion"]},
                                   "spec": {"runStrategy": "Halted"}})
    assert err.value.status == 409


def test_strategic_merge_on_pods_merges_containers_by_name(core, custom, sim):
    sim.add_pod("p1", "node-1")
    pod = core.patch_namespaced_pod("p1", NS, {"metadata": {"labels": {"x": "1"}},
                                               "spec": {"containers": [
                                                   {"name": "main", "image": "busybox"}]}})
    assert [c.name for c in pod.spec.containers] == ["main"]
    assert pod.spec.containers[0].image == "busybox"
    assert pod.spec.containers[0].resources.requests == {"cpu": "1", "memory": "1Gi"}
    create_vm(custom, "vm1")
    with pytest.raises(client.ApiException) as err:
        custom.patch_namespaced_custom_object(
            G, V, NS, VMS, "vm1", {"spec": {}},
            _content_type="application/strategic-merge-patch+json")
    assert err.value.status == 415


def test_finalizers_hold_deletion_until_emptied(custom):
    body = vm_body("vm1")
    body["metadata"]["finalizers"] = ["keel.openstack.org/protect"]
    custom.create_namespaced_custom_object(G, V, NS, VMS, body)
    obj = custom.delete_namespaced_custom_object(G, V, NS, VMS, "vm1")
    assert obj["metadata"]["deletionTimestamp"]
    still = custom.get_namespaced_custom_object(G, V, NS, VMS, "vm1")
    assert still["metadata"]["deletionTimestamp"] == obj["metadata"]["deletionTimestamp"]
    with pytest.raises(client.ApiException) as err:     # no new finalizers once deleting
        custom.patch_namespaced_custom_object(
            G, V, NS, VMS, "vm1", {"metadata": {"finalizers": ["keel.openstack.org/protect",
                                                              "other"]}})
    assert err.value.status == 422
    custom.patch_namespaced_custom_object(G, V, NS, VMS, "vm1",
                                          {"metadata": {"finalizers": None}})
    with pytest.raises(client.ApiException) as err:
        custom.get_namespaced_custom_object(G, V, NS, VMS, "vm1")
    assert err.value.status == 404


def test_delete_preconditions(core):
    s = core.create_namespaced_secret(NS, _secret("a"))
    with pytest.raises(client.ApiException) as err:
        core.delete_namespaced_secret("a", NS, body=client.V1DeleteOptions(
            preconditions=client.V1Preconditions(uid="wrong")))
    assert err.value.status == 409
    core.delete_namespaced_secret("a", NS, body=client.V1DeleteOptions(
        preconditions=client.V1Preconditions(uid=s.metadata.uid)))
    assert core.list_namespaced_secret(NS).items == []


def _owned_secret(core, name, owner):
    return core.create_namespaced_secret(NS, client.V1Secret(metadata=client.V1ObjectMeta(
        name=name, owner_references=[client.V1OwnerReference(
            api_version="kubevirt.io/v1", kind="VirtualMachine", name=owner["metadata"]["name"],
            uid=owner["metadata"]["uid"], block_owner_deletion=True)])))


def test_foreground_deletion_waits_for_dependents(core, custom, sim):
    vm = create_vm(custom, "vm1", run_strategy="Halted")
    _owned_secret(core, "dep", vm)
    sim.settle()
    custom.delete_namespaced_custom_object(G, V, NS, VMS, "vm1",
                                           body={"propagationPolicy": "Foreground"})
    got = custom.get_namespaced_custom_object(G, V, NS, VMS, "vm1")
    assert "foregroundDeletion" in got["metadata"]["finalizers"]
    assert got["status"]["printableStatus"] == "Stopped"
    sim.step()
    assert sim.get("VirtualMachine", NS, "vm1")["status"]["printableStatus"] == "Terminating"
    sim.settle()
    assert sim.get("Secret", NS, "dep") is None
    assert sim.get("VirtualMachine", NS, "vm1") is None


def test_background_and_orphan_propagation(core, custom, sim):
    a = create_vm(custom, "a", run_strategy="Halted")
    b = create_vm(custom, "b", run_strategy="Halted")
    _owned_secret(core, "dep-a", a)
    _owned_secret(core, "dep-b", b)
    sim.settle()
    custom.delete_namespaced_custom_object(G, V, NS, VMS, "a",
                                           body={"propagationPolicy": "Background"})
    custom.delete_namespaced_custom_object(G, V, NS, VMS, "b",
                                           body={"propagationPolicy": "Orphan"})
    sim.settle()
    assert sim.get("VirtualMachine", NS, "a") is None and sim.get("VirtualMachine", NS, "b") is None
    assert sim.get("Secret", NS, "dep-a") is None
    orphan = core.read_namespaced_secret("dep-b", NS)
    assert not orphan.metadata.owner_references


def test_delete_collection_by_label(core):
    for n, tier in (("a", "x"), ("b", "x"), ("c", "y")):
        core.create_namespaced_secret(NS, _secret(n, tier=tier))
    core.delete_collection_namespaced_secret(NS, label_selector="tier=x")
    assert [s.metadata.name for s in core.list_namespaced_secret(NS).items] == ["c"]


def test_dry_run_changes_nothing(core):
    core.create_namespaced_secret(NS, _secret("a"), dry_run="All")
    assert core.list_namespaced_secret(NS).items == []


def test_namespace_deletion_empties_it(core, sim):
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name="tmp")))
    core.create_namespaced_secret("tmp", _secret("a"))
    core.delete_namespace("tmp")
    assert core.read_namespace("tmp").status.phase == "Terminating"
    with pytest.raises(client.ApiException) as err:
        core.create_namespaced_secret("tmp", _secret("b"))
    assert err.value.status == 403
    sim.settle()
    assert sim.get("Namespace", None, "tmp") is None and sim.get("Secret", "tmp", "a") is None


def test_malformed_bodies_are_400(api_client):
    for body, ctype in ((b"{not json", "application/json"),
                        (b'{"kind": "Pod", "metadata": {"name": "x"}}', "application/json")):
        resp = api_client.rest_client.pool_manager.request(
            "POST", api_client.configuration.host + f"/api/v1/namespaces/{NS}/secrets",
            body=body, headers={"Content-Type": ctype})
        assert resp.status == 400, resp.data
        assert json.loads(resp.data)["kind"] == "Status"


def test_server_side_apply_is_refused_with_415(api_client):
    resp = api_client.rest_client.pool_manager.request(
        "PATCH", api_client.configuration.host + f"/api/v1/namespaces/{NS}/secrets/x",
        body=b"{}", headers={"Content-Type": "application/apply-patch+yaml"})
    assert resp.status == 415


def test_kubevirt_admission_rejects_bad_vms(custom):
    for spec in ({"runStrategy": "Sometimes", "template": {"spec": {}}},
                 {"running": True, "runStrategy": "Always", "template": {"spec": {}}},
                 {"runStrategy": "Manual"}):
        with pytest.raises(client.ApiException) as err:
            custom.create_namespaced_custom_object(G, V, NS, VMS, {
                "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
                "metadata": {"name": "bad"}, "spec": spec})
        assert err.value.status == 400
        assert "denied the request" in _status(err.value)["message"]


def test_optimistic_concurrency_under_parallel_writers(sim):
    """Parallel read-modify-write loops lose no update: each stale write gets a 409."""
    import threading
    counts = {"conflicts": 0}
    setup = client.CoreV1Api(sim.api_client())
    setup.create_namespaced_secret(NS, client.V1Secret(
        metadata=client.V1ObjectMeta(name="counter", annotations={"n": "0"})))
    lock = threading.Lock()

    def worker():
        api = client.CoreV1Api(sim.api_client())
        for _ in range(10):
            while True:
                cur = api.read_namespaced_secret("counter", NS)
                cur.metadata.annotations["n"] = str(int(cur.metadata.annotations["n"]) + 1)
                try:
                    api.replace_namespaced_secret("counter", NS, cur)
                    break
                except client.ApiException as exc:
                    assert exc.status == 409
                    with lock:
                        counts["conflicts"] += 1
    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    final = setup.read_namespaced_secret("counter", NS).metadata.annotations["n"]
    assert final == "60"
    assert counts["conflicts"] > 0


def test_delete_options_as_query_parameters(core, custom):
    body = vm_body("vm1")
    body["metadata"]["finalizers"] = ["x/y"]
    custom.create_namespaced_custom_object(G, V, NS, VMS, body)
    obj = custom.delete_namespaced_custom_object(G, V, NS, VMS, "vm1", grace_period_seconds=30,
                                                 propagation_policy="Foreground")
    assert obj["metadata"]["deletionGracePeriodSeconds"] == 30
    assert obj["metadata"]["finalizers"] == ["x/y", "foregroundDeletion"]
    core.create_namespaced_secret(NS, _secret("s"))
    with pytest.raises(client.ApiException) as err:
        core.delete_namespaced_secret("s", NS, propagation_policy="Sideways")
    assert err.value.status == 422
