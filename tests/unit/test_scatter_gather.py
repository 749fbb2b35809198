"""scatter_gather_cells answers for every cell, even slow or failing ones."""
import time

from keel import context
from keel.db import cells


class _Cell:
    def __init__(self, uuid, tmp_path):
        self.uuid = uuid
        self.database_connection = f"sqlite:///{tmp_path}/{uuid}.db"
        self.transport_url = None


def test_results_errors_and_timeouts(tmp_path):
    mapping = [_Cell(n, tmp_path) for n in ("ok", "boom", "slow")]

    def fn(cctx, factor):
        if cctx.cell_uuid == "boom":
            raise RuntimeError("cell exploded")
        if cctx.cell_uuid == "slow":
            time.sleep(2)
        return cctx.cell_uuid * factor

    start = time.monotonic()
    out = cells.scatter_gather_cells(context.get_admin_context(), mapping,
                                     0.5, fn, 2)
    assert time.monotonic() - start < 1.5
    assert out["ok"] == "okok"
    assert isinstance(out["boom"], RuntimeError)
    assert out["slow"] is cells.did_not_respond_sentinel
    assert cells.is_cell_failure_sentinel(out["boom"])
    assert cells.is_cell_failure_sentinel(out["slow"])
    assert not cells.is_cell_failure_sentinel(out["ok"])


def test_cells_run_in_parallel(tmp_path):
    mapping = [_Cell(f"c{i}", tmp_path) for i in range(4)]
    start = time.monotonic()
    out = cells.scatter_gather_cells(context.get_admin_context(), mapping,
                                     5, lambda c: time.sleep(0.3) or 1)
    assert sorted(out.values()) == [1, 1, 1, 1]
    assert time.monotonic() - start < 1.0


def test_a_cell_whose_database_cannot_open_is_a_failure_not_a_raise(tmp_path):
    from keel.db import session
    import sqlalchemy as sa

    good = _Cell("good", tmp_path)
    bad = _Cell("bad", tmp_path)
    bad.database_connection = f"sqlite:///{tmp_path}/missing/dir/bad.db"

    def fn(cctx):
        with session.cell_reader(cctx) as s:
            return s.execute(sa.text("SELECT 1")).scalar()

    out = cells.scatter_gather_cells(context.get_admin_context(),
                                     [good, bad], 5, fn)
    assert out["good"] == 1
    assert isinstance(out["bad"], Exception)
