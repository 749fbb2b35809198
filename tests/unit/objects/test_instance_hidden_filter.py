"""InstanceList.get_by_filters and hidden instances, as Nova's
instance_get_all_by_filters_sort: the hidden copy of an instance (the
source side of a cross-cell resize) is left out unless hidden=True is
asked for, and a row whose hidden is NULL (written before the column
existed) counts as not hidden."""
import sqlalchemy as sa

from keel.db.cell import models
from keel import objects
from keel.objects import db_helpers as h
from tests.unit.objects.test_instance_db import _instance


def _names(ctx, **filters):
    return sorted(i.display_name for i in
                  objects.InstanceList.get_by_filters(ctx, filters))


def test_hidden_instances_only_when_asked(ctx):
    _instance(ctx, display_name="shown")
    _instance(ctx, display_name="copy", hidden=True)
    legacy = _instance(ctx, display_name="legacy")
    with h.cell_writer(ctx) as s:
        s.execute(sa.update(models.Instance).where(
            models.Instance.uuid == legacy.uuid).values(hidden=None))
    assert _names(ctx) == ["legacy", "shown"]
    assert _names(ctx, hidden=False) == ["legacy", "shown"]
    assert _names(ctx, hidden=True) == ["copy"]
    # Other filters still combine with it.
    assert _names(ctx, display_name="^c", hidden=True) == ["copy"]
    assert _names(ctx, display_name="^c") == []
