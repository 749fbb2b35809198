"""Audit periods ([DEFAULT]/instance_usage_audit_period), as Nova's
``last_completed_audit_period``: ``hour``, ``day``, ``month`` or ``year``,
optionally with an offset (``month@15``: months start on the 15th)."""
import datetime

from oslo_utils import timeutils

from keel.conf import CONF


def _add_months(year, month, delta):
    month0 = month - 1 + delta
    return year + month0 // 12, month0 % 12 + 1


def last_completed_audit_period(unit=None, before=None):
    """``(begin, end)`` of the last completed period, naive UTC."""
    unit = unit or CONF.instance_usage_audit_period
    offset = 0
    if '@' in unit:
        unit, offset = unit.split('@', 1)
        offset = int(offset)
    now = before or timeutils.utcnow()
    now = now.replace(tzinfo=None)
    if unit == 'year':
        offset = offset or 1
        end = datetime.datetime(now.year, offset, 1)
        if end > now:
            end = end.replace(year=now.year - 1)
        begin = end.replace(year=end.year - 1)
    elif unit == 'month':
        offset = offset or 1
        end = datetime.datetime(now.year, now.month, offset)
        if end > now:
            y, m = _add_months(now.year, now.month, -1)
            end = datetime.datetime(y, m, offset)
        y, m = _add_months(end.year, end.month, -1)
        begin = datetime.datetime(y, m, offset)
    elif unit == 'day':
        end = datetime.datetime(now.year, now.month, now.day, offset)
        if end > now:
            end -= datetime.timedelta(days=1)
        begin = end - datetime.timedelta(days=1)
    else:  # hour
        end = now.replace(minute=offset, second=0, microsecond=0)
        if end > now:
            end -= datetime.timedelta(hours=1)
        begin = end - datetime.timedelta(hours=1)
    return begin, end


def audit_period_bounds(current_period=False):
    """The current period (end of the last one up to now) or the last one."""
    begin, end = last_completed_audit_period()
    if current_period:
        return end, timeutils.utcnow().replace(tzinfo=None)
    return begin, end
