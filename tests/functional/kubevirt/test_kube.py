"""The Kubernetes adapter and the informers against the simulator: 404s,
409 conflicts, retried 5xx, watch resume, BOOKMARKs and 410 re-lists."""
import threading

import pytest

from keel.virt.kubevirt import kube
from keel.virt.kubevirt import watch

from .conftest import NS


@pytest.fixture
def client(conf):
    c = kube.KubeClient(conf)
    yield c
    c.close()


def _vm(name, **labels):
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
            "metadata": {"name": name, "labels": labels or {"t": "x"}},
            "spec": {"runStrategy": "Manual", "template": {"spec": {
                "domain": {"devices": {}, "memory": {"guest": "1Gi"}}}}}}


def test_namespace_from_kubeconfig_and_not_found_mapping(client):
    assert client.namespace == NS
    assert client.get(kube.VM, "nope") is None
    assert client.get(kube.SECRET, "nope") is None
    assert client.delete(kube.VM, "nope") is False
    with pytest.raises(kube.KubeError) as err:
        client.subresource("virtualmachines", "nope", "start")
    assert err.value.status == 404


def test_update_rereads_and_retries_on_conflict(client, sim):
    client.create(kube.VM, _vm("a"))
    calls = []

    def mutate(obj):
        calls.append(obj["metadata"]["resourceVersion"])
        if len(calls) == 1:
            # Someone else writes between our read and our write.
            client.patch(kube.VM, "a", {"metadata": {"labels": {"o": "1"}}})
        obj["metadata"]["labels"]["mine"] = "yes"
        return obj
    stored = client.update(kube.VM, "a", mutate)
    assert len(calls) == 2 and calls[0] != calls[1]
    assert stored["metadata"]["labels"] == {"t": "x", "o": "1", "mine": "yes"}


def test_update_gives_up_after_conflict_retries(client, conf, sim):
    conf.set_override("conflict_retries", 1, group="kubevirt")
    client.create(kube.VM, _vm("a"))

    def always_raced(obj):
        client.patch(kube.VM, "a", {"metadata": {"labels": {
            "n": obj["metadata"]["resourceVersion"]}}})
        return obj
    with pytest.raises(kube.KubeError) as err:
        client.update(kube.VM, "a", always_raced)
    assert err.value.status == 409


def test_transient_errors_are_retried_others_not(client, sim):
    fault = sim.fail_requests("list", "nodes", status=503, count=2)
    items, _rv = client.list(kube.NODE)
    assert len(items) == 2 and fault.hits == 2
    sim.fail_requests("get", "secrets", status=403)
    with pytest.raises(kube.KubeError) as err:
        client.get(kube.SECRET, "x")
    assert err.value.status == 403


class _Recorder(object):
    def __init__(self):
        self.events = []
        self.lock = threading.Lock()

    def __call__(self, etype, old, new):
        with self.lock:
            self.events.append((etype, (new or old)["metadata"]["name"]))


@pytest.fixture
def informer(client):
    rec = _Recorder()
    inf = watch.Informer(client, kube.VM, "t=x", handler=rec,
                         retry_interval=0.05)
    inf.recorder = rec
    yield inf
    inf.stop()


def test_informer_lists_then_watches(client, sim, informer):
    client.create(kube.VM, _vm("before"))
    client.create(kube.VM, _vm("other", t="y"))
    informer.start()
    assert informer.names() == ["before"]
    client.create(kube.VM, _vm("after"))
    assert informer.wait_for(lambda: informer.get("after"), 5)
    client.delete(kube.VM, "before")
    sim.settle()        # foreground deletion: the garbage collector's turn
    assert informer.wait_for(lambda: informer.get("before") is None, 5)
    assert ("DELETED", "before") in informer.recorder.events


def test_watch_disconnect_resumes_without_relist_or_loss(client, sim,
                                                         informer):
    informer.start()
    client.create(kube.VM, _vm("probe"))      # seen: the watch is open
    assert informer.wait_for(lambda: informer.get("probe"), 5)
    for abrupt in (False, True):
        sim.disconnect_watches(abrupt=abrupt)
        name = "during-%s" % abrupt
        client.create(kube.VM, _vm(name.lower()))
        assert informer.wait_for(lambda: informer.get(name.lower()), 5)
    assert informer.relists == 1


def test_bookmarks_advance_the_resource_version(client, sim, informer):
    informer.start()
    # A bookmark reaches only a watch already open: a stream takes the
    # simulator's bookmark count when it starts.
    assert informer.wait_for(lambda: sim.watches.active >= 1, 5)
    client.create(kube.VM, _vm("x", t="other"))     # not selected
    before = informer.resource_version
    sim.send_bookmarks()
    assert informer.wait_for(
        lambda: int(informer.resource_version) > int(before), 5)
    assert informer.names() == []


def test_gone_relists_and_reports_what_changed_meanwhile(client, sim,
                                                         informer):
    client.create(kube.VM, _vm("stays"))
    client.create(kube.VM, _vm("goes"))
    informer.start()
    client.create(kube.VM, _vm("probe"))      # seen: the watch is open
    assert informer.wait_for(lambda: informer.get("probe"), 5)
    # Keep the watch away while things change and history is compacted.
    fault = sim.fail_requests("watch", "virtualmachines", status=503,
                              count=None)
    sim.disconnect_watches()
    assert informer.wait_for(lambda: fault.hits > 0, 5)
    client.delete(kube.VM, "goes")
    sim.settle()
    client.create(kube.VM, _vm("new"))
    sim.compact()
    sim.clear_faults()
    assert informer.wait_for(lambda: informer.relists == 2 and
                             informer.get("new"), 10)
    assert sorted(informer.names()) == ["new", "probe", "stays"]
    # Nothing was watched meanwhile, yet no change is lost.
    assert {("ADDED", "new"), ("DELETED", "goes")} <= set(
        informer.recorder.events)
