"""Service.save of a heartbeat: one UPDATE while the row holds what the
caller has, else the row is read as before (Nova's service_update)."""
import datetime

import pytest
from oslo_utils import timeutils

from keel import exception
from keel import objects
from tests.unit.objects.test_instance_statements import _statements
from tests.unit.objects.test_service_db import _service


def _naive(value):
    # MySQL's DATETIME keeps whole seconds; the object what was written.
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=None, microsecond=0)
    return value


def _assert_as_reread(ctx, svc):
    fresh = objects.Service.get_by_id(ctx, svc.id)
    for name in ("uuid", "host", "binary", "topic", "report_count",
                 "disabled", "disabled_reason", "forced_down", "version",
                 "last_seen_up", "updated_at", "created_at", "deleted"):
        assert _naive(getattr(svc, name)) == _naive(getattr(fresh, name)), \
            name
    assert not svc.obj_what_changed()


def _beat(svc):
    svc.report_count += 1
    svc.last_seen_up = timeutils.utcnow()
    svc.save()


def test_heartbeat_is_one_update(ctx):
    svc = _service(ctx)
    _beat(svc)  # the first save also reads the minimum service version
    before = timeutils.utcnow().replace(microsecond=0)
    with _statements() as seen:
        _beat(svc)
    assert seen == ["UPDATE"], seen
    assert svc.report_count == 2
    assert _naive(svc.updated_at) >= before
    _assert_as_reread(ctx, svc)
    with _statements() as seen:
        _beat(svc)
    assert seen == ["UPDATE"], seen
    assert svc.report_count == 3
    _assert_as_reread(ctx, svc)


def test_heartbeat_brings_back_an_operators_change(ctx):
    svc = _service(ctx)
    _beat(svc)
    other = objects.Service.get_by_id(ctx, svc.id)
    other.disabled = True
    other.disabled_reason = "maintenance"
    other.save()
    with _statements() as seen:
        _beat(svc)
    # The one-statement beat did not match; the row is read and written.
    assert seen == ["UPDATE", "SELECT", "UPDATE"], seen
    assert svc.disabled is True and svc.disabled_reason == "maintenance"
    assert svc.report_count == 2
    _assert_as_reread(ctx, svc)
    other = objects.Service.get_by_id(ctx, svc.id)
    other.forced_down = True
    other.save()
    _beat(svc)
    assert svc.forced_down is True
    _assert_as_reread(ctx, svc)


def test_heartbeat_of_a_deleted_service_is_not_found(ctx):
    svc = _service(ctx)
    objects.Service.get_by_id(ctx, svc.id).destroy()
    with pytest.raises(exception.ServiceNotFound):
        _beat(svc)


def test_heartbeat_behind_the_stored_count_is_written_as_given(ctx):
    svc = _service(ctx)
    ahead = objects.Service.get_by_id(ctx, svc.id)
    ahead.report_count = 10
    ahead.save()
    with _statements() as seen:
        _beat(svc)
    assert seen == ["UPDATE", "SELECT", "UPDATE"], seen
    # As Nova's service_update: the values given are written.
    assert svc.report_count == 1
    _assert_as_reread(ctx, svc)


def test_report_count_alone_stamps_last_seen_up_as_novas_database(ctx):
    svc = _service(ctx)
    assert svc.last_seen_up is None
    before = timeutils.utcnow().replace(microsecond=0)
    svc.report_count = 1
    svc.save()
    assert svc.last_seen_up is not None
    assert _naive(svc.last_seen_up) >= before
    _assert_as_reread(ctx, svc)
    # Not growing: the last heartbeat stays what it was.
    seen_up = objects.Service.get_by_id(ctx, svc.id).last_seen_up
    behind = objects.Service.get_by_id(ctx, svc.id)
    behind.report_count = 0
    behind.save()
    assert _naive(behind.last_seen_up) == _naive(seen_up)
    _assert_as_reread(ctx, behind)


def test_heartbeat_sees_a_reason_changed_only_in_case(ctx):
    # MariaDB's default collation compares strings without case.
    svc = _service(ctx)
    other = objects.Service.get_by_id(ctx, svc.id)
    other.disabled = True
    other.disabled_reason = "Maintenance"
    other.save()
    _beat(svc)
    assert svc.disabled_reason == "Maintenance"
    other.disabled_reason = "maintenance "
    other.save()
    _beat(svc)
    assert svc.disabled_reason == "maintenance "
    _assert_as_reread(ctx, svc)
