"""List semantics: label and field selectors, limit/continue paging with a consistent
snapshot, and 410 for a continue token whose snapshot was compacted away."""
import json

import pytest
from kubernetes import client

from .kv import NS


def _names(items):
    return sorted(i.metadata.name for i in items)


@pytest.fixture
def labelled(core):
    for name, labels in (("a", {"tier": "web", "env": "prod"}),
                         ("b", {"tier": "db", "env": "prod"}),
                         ("c", {"tier": "web", "env": "dev"}),
                         ("d", {"other": "x"})):
        core.create_namespaced_secret(NS, client.V1Secret(
            metadata=client.V1ObjectMeta(name=name, labels=labels)))
    return core


@pytest.mark.parametrize("selector, expected", [
    ("tier=web", ["a", "c"]),
    ("tier==web", ["a", "c"]),
    ("tier!=web", ["b", "d"]),            # != also matches objects without the label
    ("tier in (web, db),env=prod", ["a", "b"]),
    ("tier notin (web)", ["b", "d"]),
    ("tier", ["a", "b", "c"]),
    ("!tier", ["d"]),
    ("", ["a", "b", "c", "d"]),
])
def test_label_selectors(labelled, selector, expected):
    assert _names(labelled.list_namespaced_secret(NS, label_selector=selector).items) == expected


def test_bad_label_selector_is_400(labelled):
    with pytest.raises(client.ApiException) as err:
        labelled.list_namespaced_secret(NS, label_selector="tier in (a")
    assert err.value.status == 400


def test_field_selectors_on_pods(core, sim):
    sim.add_pod("p1", "node-1")
    sim.add_pod("p2", "node-2")
    on1 = core.list_namespaced_pod(NS, field_selector="spec.nodeName=node-1")
    assert _names(on1.items) == ["p1"]
    assert _names(core.list_pod_for_all_namespaces(
        field_selector="status.phase=Running,metadata.name!=p1").items) == ["p2"]
    assert _names(core.list_namespaced_pod(NS, field_selector="metadata.name=p2").items) == ["p2"]
    with pytest.raises(client.ApiException) as err:
        core.list_namespaced_pod(NS, field_selector="spec.bogus=1")
    assert err.value.status == 400
    assert "field label not supported" in json.loads(err.value.body)["message"]


def test_custom_resources_only_support_metadata_fields(custom):
    with pytest.raises(client.ApiException) as err:
        custom.list_namespaced_custom_object("kubevirt.io", "v1", NS, "virtualmachines",
                                             field_selector="status.phase=Running")
    assert err.value.status == 400


def test_paging_is_a_consistent_snapshot(core):
    for i in range(5):
        core.create_namespaced_secret(NS, client.V1Secret(
            metadata=client.V1ObjectMeta(name=f"s{i}")))
    page = core.list_namespaced_secret(NS, limit=2)
    assert _names(page.items) == ["s0", "s1"]
    assert page.metadata.remaining_item_count == 3 and page.metadata._continue
    core.delete_namespaced_secret("s3", NS)           # changes after the first page...
    rest = []
    token = page.metadata._continue
    while token:
        nxt = core.list_namespaced_secret(NS, limit=2, _continue=token)
        assert nxt.metadata.resource_version == page.metadata.resource_version
        rest += _names(nxt.items)
        token = nxt.metadata._continue
    assert rest == ["s2", "s3", "s4"]                 # ...do not show in the snapshot
    assert _names(core.list_namespaced_secret(NS).items) == ["s0", "s1", "s2", "s4"]


def test_expired_continue_token_is_410(core, sim):
    for i in range(3):
        core.create_namespaced_secret(NS, client.V1Secret(
            metadata=client.V1ObjectMeta(name=f"s{i}")))
    page = core.list_namespaced_secret(NS, limit=1)
    core.create_namespaced_secret(NS, client.V1Secret(metadata=client.V1ObjectMeta(name="new")))
    sim.compact()           # etcd compacts the revisions the snapshot was taken at
    with pytest.raises(client.ApiException) as err:
        core.list_namespaced_secret(NS, limit=1, _continue=page.metadata._continue)
    assert err.value.status == 410
    assert json.loads(err.value.body)["reason"] == "Expired"


def test_nodes_are_cluster_scoped_with_allocatable(core, sim):
    sim.add_node("gpu-1", cpu="64", memory="256Gi", labels={"nvidia.com/gpu": "true"},
                 allocatable={"nvidia.com/gpu": "4"})
    nodes = core.list_node(label_selector="kubevirt.io/schedulable=true,nvidia.com/gpu")
    assert _names(nodes.items) == ["gpu-1"]
    alloc = nodes.items[0].status.allocatable
    assert alloc["cpu"] == "64" and alloc["memory"] == "256Gi" and alloc["nvidia.com/gpu"] == "4"
    assert nodes.items[0].status.conditions[0].type == "Ready"
    labels = nodes.items[0].metadata.labels
    assert labels["cpu-feature.node.kubevirt.io/vmx"] == "true"
    assert labels["cpu-model.node.kubevirt.io/Skylake-Client-IBRS"] == "true"
