"""Watch semantics through kubernetes.watch.Watch: replay from a resourceVersion, selector
transitions, 410 Gone and re-list, bookmarks, timeoutSeconds and disconnects."""
import queue
import threading
import time

import pytest
import urllib3
from kubernetes import client, watch

from .kv import NS, create_vm


def _secret(core, name, **labels):
    return core.create_namespaced_secret(NS, client.V1Secret(
        metadata=client.V1ObjectMeta(name=name, labels=labels or None)))


def _take(stream, n):
    out = []
    for ev in stream:
        out.append(ev)
        if len(out) == n:
            break
    return out


def test_watch_replays_changes_after_a_resource_version(core):
    rv = core.list_namespaced_secret(NS).metadata.resource_version
    _secret(core, "a")
    core.patch_namespaced_secret("a", NS, {"metadata": {"labels": {"x": "1"}}})
    core.delete_namespaced_secret("a", NS)
    w = watch.Watch()
    events = _take(w.stream(core.list_namespaced_secret, NS, resource_version=rv,
                            timeout_seconds=5), 3)
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    rvs = [int(e["object"].metadata.resource_version) for e in events]
    assert rvs == sorted(rvs) and rvs[0] > int(rv)
    assert events[1]["object"].metadata.labels == {"x": "1"}


def test_watch_without_resource_version_starts_with_current_objects(core):
    _secret(core, "a")
    _secret(core, "b")
    events = _take(watch.Watch().stream(core.list_namespaced_secret, NS, timeout_seconds=5), 2)
    assert [(e["type"], e["object"].metadata.name) for e in events] == [("ADDED", "a"),
                                                                          ("ADDED", "b")]


def test_label_selector_watch_sees_objects_enter_and_leave(core):
    _secret(core, "a", tier="web")
    rv = core.list_namespaced_secret(NS).metadata.resource_version
    core.patch_namespaced_secret("a", NS, {"metadata": {"labels": {"tier": "db"}}})
    core.patch_namespaced_secret("a", NS, {"metadata": {"labels": {"tier": "web"}}})
    _secret(core, "other", tier="db")
    events = _take(watch.Watch().stream(core.list_namespaced_secret, NS, label_selector="tier=web",
                                        resource_version=rv, timeout_seconds=2), 2)
    assert [e["type"] for e in events] == ["DELETED", "ADDED"]


def test_too_old_resource_version_gets_410_then_relist_recovers(core, sim):
    rv = core.list_namespaced_secret(NS).metadata.resource_version
    _secret(core, "a")
    sim.compact()
    with pytest.raises(client.ApiException) as err:
        _take(watch.Watch().stream(core.list_namespaced_secret, NS, resource_version=rv), 1)
    assert err.value.status == 410 and "Expired" in err.value.reason
    fresh = core.list_namespaced_secret(NS)           # the informer's re-list
    assert [s.metadata.name for s in fresh.items] == ["a"]
    _secret(core, "b")
    events = _take(watch.Watch().stream(core.list_namespaced_secret, NS, timeout_seconds=5,
                                        resource_version=fresh.metadata.resource_version), 1)
    assert events[0]["object"].metadata.name == "b"


def test_bounded_history_expires_old_versions():
    from keel.kubesim import KubeSim
    with KubeSim(history_size=5) as small:
        core = client.CoreV1Api(small.api_client())
        rv = core.list_namespaced_secret(NS).metadata.resource_version
        for i in range(10):
            _secret(core, f"s{i}")
        stream = core.list_namespaced_secret(NS, watch=True, resource_version=rv,
                                             _preload_content=False)
        line = stream.readline() if hasattr(stream, "readline") else stream.read().split(b"\n")[0]
        import json
        ev = json.loads(line)
        assert ev["type"] == "ERROR" and ev["object"]["code"] == 410
        assert ev["object"]["reason"] == "Expired"
        stream.release_conn()


def test_bookmarks_carry_the_current_resource_version(core, sim, custom):
    rv = core.list_namespaced_secret(NS).metadata.resource_version
    create_vm(custom, "vm1")          # another kind moves the version on
    w = watch.Watch()
    events = list(w.stream(core.list_namespaced_secret, NS, resource_version=rv,
                           allow_watch_bookmarks=True, timeout_seconds=1))
    assert [e["type"] for e in events] == ["BOOKMARK"]
    mark = events[0]["raw_object"]["metadata"]["resourceVersion"]
    assert int(mark) == sim.store.resource_version > int(rv)
    assert w.resource_version == mark      # the client resumes from the bookmark


def test_no_bookmarks_unless_asked(core):
    events = list(watch.Watch().stream(core.list_namespaced_secret, NS, timeout_seconds=1))
    assert events == []


def test_timeout_seconds_ends_the_stream(core):
    start = time.monotonic()
    assert list(watch.Watch().stream(core.list_namespaced_secret, NS, timeout_seconds=1)) == []
    assert 0.9 <= time.monotonic() - start < 3


def _background_watch(core, **kw):
    w = watch.Watch()
    q = queue.Queue()

    def run():
        try:
            for ev in w.stream(core.list_namespaced_secret, NS, **kw):
                q.put(("event", ev))
        except Exception as exc:  # noqa: BLE001 - handed to the test
            q.put(("error", exc))
        q.put(("end", None))
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return w, q, t


def _next(q, timeout=5):
    return q.get(timeout=timeout)


def test_clean_disconnect_resumes_without_losing_events(core, sim):
    rv = core.list_namespaced_secret(NS).metadata.resource_version
    w, q, t = _background_watch(core, resource_version=rv)
    _secret(core, "a")
    assert _next(q)[1]["object"].metadata.name == "a"
    sim.disconnect_watches()
    _secret(core, "b")                   # written while the client reconnects
    kind, ev = _next(q)
    assert kind == "event" and (ev["type"], ev["object"].metadata.name) == ("ADDED", "b")
    assert sim.request_count("watch", "/secrets") == 2
    w.stop()             # the client shuts its own socket down to unblock the reader
    t.join(timeout=5)
    assert not t.is_alive()
    rest = []
    while not q.empty():
        rest.append(q.get_nowait()[0])
    assert "event" not in rest           # no duplicate replayed after the reconnect


def test_abrupt_disconnect_is_an_error_and_resume_loses_nothing(core, sim):
    rv = core.list_namespaced_secret(NS).metadata.resource_version
    w, q, t = _background_watch(core, resource_version=rv)
    _secret(core, "a")
    last = _next(q)[1]["object"].metadata.resource_version
    sim.disconnect_watches(abrupt=True)
    kind, exc = _next(q)
    assert kind == "error" and isinstance(exc, (urllib3.exceptions.ProtocolError,
                                                urllib3.exceptions.HTTPError))
    t.join(timeout=5)
    _secret(core, "b")
    events = _take(watch.Watch().stream(core.list_namespaced_secret, NS, resource_version=last,
                                        timeout_seconds=5), 1)
    assert events[0]["object"].metadata.name == "b"


def test_custom_object_watch_and_name_field_selector(custom, sim):
    rv = custom.list_namespaced_custom_object("kubevirt.io", "v1", NS,
                                              "virtualmachines")["metadata"]["resourceVersion"]
    create_vm(custom, "vm1")
    create_vm(custom, "vm2")
    events = _take(watch.Watch().stream(custom.list_namespaced_custom_object, "kubevirt.io", "v1",
                                        NS, "virtualmachines", resource_version=rv,
                                        field_selector="metadata.name=vm2", timeout_seconds=5), 1)
    assert events[0]["type"] == "ADDED" and events[0]["object"]["metadata"]["name"] == "vm2"


def test_send_initial_events_ends_with_an_annotated_bookmark(core):
    _secret(core, "a")
    events = _take(watch.Watch().stream(core.list_namespaced_secret, NS,
                                        allow_watch_bookmarks=True, send_initial_events=True,
                                        resource_version_match="NotOlderThan",
                                        resource_version="", timeout_seconds=5), 2)
    assert events[0]["type"] == "ADDED"
    assert events[1]["type"] == "BOOKMARK"
    assert events[1]["raw_object"]["metadata"]["annotations"] == {
        "k8s.io/initial-events-end": "true"}


def test_periodic_bookmarks_while_idle():
    from keel.kubesim import KubeSim
    with KubeSim(bookmark_interval=0.2) as sim:
        core = client.CoreV1Api(sim.api_client())
        rv = core.list_namespaced_secret(NS).metadata.resource_version
        start = time.monotonic()
        events = _take(watch.Watch().stream(core.list_namespaced_secret, NS,
                                            resource_version=rv, allow_watch_bookmarks=True,
                                            timeout_seconds=5), 2)
        assert [e["type"] for e in events] == ["BOOKMARK", "BOOKMARK"]
        assert time.monotonic() - start < 2
        assert "annotations" not in events[0]["raw_object"]["metadata"]


def test_server_notices_a_client_that_went_away(core, sim):
    stream = core.list_namespaced_secret(NS, watch=True, _preload_content=False)
    deadline = time.monotonic() + 5
    while sim.watches.active != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert sim.watches.active == 1
    stream.close()
    stream.release_conn()
    core.api_client.rest_client.pool_manager.clear()      # drop the socket for real
    deadline = time.monotonic() + 5
    while sim.watches.active and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sim.watches.active == 0
