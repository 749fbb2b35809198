"""Console token lookup for the API: a token names no cell, so every cell
but cell0 is asked (in parallel) and the first authorization found wins
(a token belongs to one instance, in one cell)."""
from keel.db import cells as cells_db
from keel import exception
from keel import objects


def _validate_in_cell(cctxt, token):
    try:
        return objects.ConsoleAuthToken.validate(cctxt, token)
    except exception.InvalidToken:
        return None


def find_token(context, token):
    """The unexpired ConsoleAuthToken of ``token``, or None."""
    results = cells_db.scatter_gather_skip_cell0(context, _validate_in_cell,
                                                 token)
    for result in results.values():
        if result is not None and \
                not cells_db.is_cell_failure_sentinel(result):
            return result
    return None
