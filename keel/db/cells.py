"""Running one function over many cells at once.

``scatter_gather_cells`` answers for every cell: the function's result, the
exception it raised, or ``did_not_respond_sentinel`` when the cell did not
answer within the timeout. It never raises because of one cell, so a list
across cells degrades to partial results when a cell is down.
"""
import concurrent.futures
import logging

from keel import context as keel_context

LOG = logging.getLogger(__name__)

CELL_TIMEOUT = 60


class _Sentinel:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<{self.name}>"


did_not_respond_sentinel = _Sentinel("did_not_respond")
raised_exception_sentinel = _Sentinel("raised_exception")

# A pool shared by every scatter-gather of the process: cell fan-out is
# I/O bound, and a fresh pool per request would cost thread start-up on
# every list call.
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=32,
                                              thread_name_prefix="cells")


def is_cell_failure_sentinel(value):
    return value is did_not_respond_sentinel or isinstance(value, Exception)


def scatter_gather_cells(context, cell_mappings, timeout, fn, *args, **kwargs):
    """Run ``fn(cell_context, *args, **kwargs)`` in every cell in parallel.

    Returns ``{cell_uuid: result | exception | did_not_respond_sentinel}``.
    """
    timeout = CELL_TIMEOUT if timeout is None else timeout
    futures = {}
    for cell in cell_mappings:
        with keel_context.target_cell(context, cell) as cctxt:
            futures[cell.uuid] = _POOL.submit(_run_one, cctxt, fn, args,
                                              kwargs)
    results = {}
    done, _ = concurrent.futures.wait(futures.values(), timeout=timeout)
    for cell_uuid, fut in futures.items():
        if fut in done:
            results[cell_uuid] = fut.result()
        else:
            LOG.warning("Timed out waiting for response from cell %s",
                        cell_uuid)
            results[cell_uuid] = did_not_respond_sentinel
    return results


def _run_one(cctxt, fn, args, kwargs):
    try:
        return fn(cctxt, *args, **kwargs)
    except Exception as exc:  # a cell failing must not fail the others
        LOG.exception("Error gathering result from cell %s", cctxt.cell_uuid)
        return exc


def scatter_gather_skip_cell0(context, fn, *args, **kwargs):
    from keel import objects
    cells = [c for c in objects.CellMappingList.get_all(context)
             if not c.is_cell0()]
    return scatter_gather_cells(context, cells, CELL_TIMEOUT, fn, *args,
                                **kwargs)


def scatter_gather_all_cells(context, fn, *args, **kwargs):
    from keel import objects
    cells = objects.CellMappingList.get_all(context)
    return scatter_gather_cells(context, cells, CELL_TIMEOUT, fn, *args,
                                **kwargs)
