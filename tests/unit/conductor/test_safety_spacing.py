"""The orphan sweep runs at the computes' period, not the build nets'."""
from keel.conductor.tasks import safety


def test_orphan_sweep_one_period_after_start_then_every_period(monkeypatch):
    monkeypatch.setattr(safety, "_orphans_last", [None])
    spacing = safety.ORPHANS_SPACING
    assert not safety._orphans_due(1000.0 - spacing)
    assert not safety._orphans_due(1000.0 - 1)
    assert safety._orphans_due(1000.0)
    assert not safety._orphans_due(1000.0 + safety.spacing())
    assert not safety._orphans_due(1000.0 + spacing - 1)
    assert safety._orphans_due(1000.0 + spacing)
    assert not safety._orphans_due(1000.0 + spacing + 1)


def test_run_skips_the_orphan_sweep_between_periods(monkeypatch):
    monkeypatch.setattr(safety, "_orphans_last",
                        [-safety.ORPHANS_SPACING])
    calls = []
    monkeypatch.setattr(safety, "redrive_lost_builds",
                        lambda *a: calls.append("redriven") or [])
    monkeypatch.setattr(safety, "error_out_abandoned_builds",
                        lambda *a: calls.append("errored") or [])
    monkeypatch.setattr(safety, "remove_orphaned_allocations",
                        lambda *a: calls.append("orphans") or [])
    assert set(safety.run(None, None, None, "cond")) == {
        "redriven", "errored", "orphans"}
    assert set(safety.run(None, None, None, "cond")) == {
        "redriven", "errored"}
    assert calls == ["redriven", "errored", "orphans", "redriven",
                     "errored"]
