"""The scheduler's copy of the host aggregates (aggregates.py)."""
from keel import objects
from keel.scheduler import aggregates


def _agg(agg_id, hosts=(), zone=None):
    return objects.Aggregate(
        id=agg_id, name="a%d" % agg_id, uuid="00000000-0000-0000-0000-%012d"
        % agg_id, hosts=list(hosts),
        metadata={"availability_zone": zone} if zone else {})


class Loader:
    def __init__(self, *aggs):
        self.aggs = list(aggs)
        self.calls = 0
        self.during = None     # called in the middle of a read

    def __call__(self, ctxt):
        self.calls += 1
        found = list(self.aggs)
        if self.during:
            self.during()
        return found


def test_read_once_then_follows_the_casts():
    loader = Loader(_agg(2, ["h1"], "az1"), _agg(1, ["h1", "h2"]))
    view = aggregates.AggregateView(loader, refresh=None)
    snap = view.snapshot(None)
    assert [a.id for a in snap.aggregates] == [1, 2]      # id order
    assert [a.id for a in snap.by_host["h1"]] == [1, 2]
    assert snap.zones == {"h1": "az1"}
    assert view.snapshot(None) is snap and loader.calls == 1
    view.update([_agg(3, ["h2"], "az2")])
    snap = view.snapshot(None)
    assert [a.id for a in snap.by_host["h2"]] == [1, 3]
    assert snap.zones == {"h1": "az1", "h2": "az2"}
    view.delete(_agg(2))
    assert view.snapshot(None).zones == {"h2": "az2"}
    assert loader.calls == 1
    view.reset()
    assert [a.id for a in view.snapshot(None).aggregates] == [1, 2]
    assert loader.calls == 2


def test_refresh_interval_reads_again(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(aggregates.time, "monotonic", lambda: now[0])
    loader = Loader(_agg(1, ["h1"]))
    view = aggregates.AggregateView(loader, refresh=60)
    view.snapshot(None)
    now[0] += 59
    view.snapshot(None)
    assert loader.calls == 1
    loader.aggs = []               # a missed delete cast
    now[0] += 1
    assert view.snapshot(None).aggregates == [] and loader.calls == 2


def test_a_cast_during_a_read_wins_over_the_read():
    loader = Loader(_agg(1, ["h1"]), _agg(2, ["h2"]))
    view = aggregates.AggregateView(loader, refresh=None)

    def casts():
        view.update(_agg(1, ["h9"]))     # moved while we read
        view.delete(_agg(2))             # deleted while we read
    loader.during = casts
    snap = view.snapshot(None)
    assert [a.id for a in snap.aggregates] == [1]
    assert snap.by_host == {"h9": [view.by_id[1]]}
    assert view.host_aggregates["h9"] == {1}
    assert not view.host_aggregates.get("h1")
