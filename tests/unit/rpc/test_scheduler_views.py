"""The scheduler's host -> instances and host -> aggregates views."""
from keel import context as keel_context
from keel import objects
from keel.scheduler import manager as scheduler_manager


A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"
C = "cccccccc-0000-4000-8000-000000000003"
D = "dddddddd-0000-4000-8000-000000000004"


def _inst(uuid):
    return objects.Instance(uuid=uuid, host="h1")


def test_instance_view_follows_updates_deletes_and_syncs():
    loads = []

    def loader(ctxt, host):
        loads.append(host)
        return {D: _inst(D)}
    view = scheduler_manager.HostInstanceView(loader=loader)
    ctxt = keel_context.get_admin_context()
    # A full list from a starting compute is trusted as is.
    view.update(ctxt, "h1", [_inst(A), _inst(B)])
    assert set(view.instances("h1")) == {A, B}
    assert view.is_updated("h1") and loads == []
    view.update(ctxt, "h1", [_inst(C)])
    view.delete(ctxt, "h1", A)
    assert set(view.instances("h1")) == {B, C}
    view.sync(ctxt, "h1", [C, B])
    assert view.is_updated("h1") and loads == []
    # A sync that disagrees rebuilds the host's view from the database.
    view.sync(ctxt, "h1", [B])
    assert loads == ["h1"]
    assert set(view.instances("h1")) == {D}
    assert not view.is_updated("h1")
    # An unknown host is loaded once, then confirmed by its sync.
    view.sync(ctxt, "h2", [D])
    assert loads == ["h1", "h2"] and view.is_updated("h2")
    assert view.hosts() == ["h1", "h2"]


def test_instance_view_survives_an_unloadable_host():
    def loader(ctxt, host):
        raise RuntimeError("cell down")
    view = scheduler_manager.HostInstanceView(loader=loader)
    ctxt = keel_context.get_admin_context()
    view.update(ctxt, "h9", [])
    assert view.instances("h9") == {} and view.hosts() == ["h9"]
    view.sync(ctxt, "h9", [])
    assert view.is_updated("h9")


def test_aggregate_view():
    view = scheduler_manager.AggregateView()
    agg = objects.Aggregate(id=1, name=A, hosts=["h1", "h2"], metadata={})
    view.update([agg])
    assert view.host_aggregates["h1"] == {1}
    agg2 = objects.Aggregate(id=1, name=A, hosts=["h2"], metadata={})
    view.update(agg2)
    assert view.host_aggregates["h1"] == set()
    assert view.host_aggregates["h2"] == {1}
    view.delete(agg2)
    assert view.by_id == {} and view.host_aggregates["h2"] == set()


def test_an_unmapped_new_host_is_no_warning(caplog):
    """A compute that reports before discover_hosts mapped it has no
    instances: an empty view, logged as information, not as a warning."""
    from keel import exception

    def loader(ctxt, host):
        raise exception.HostMappingNotFound(name=host)
    view = scheduler_manager.HostInstanceView(loader=loader)
    with caplog.at_level("INFO"):
        view.update(keel_context.get_admin_context(), "new", [])
    assert view.instances("new") == {}
    assert [r.levelname for r in caplog.records
            if "new" in r.getMessage() and "mapped" in r.getMessage()] == \
        ["INFO"]
