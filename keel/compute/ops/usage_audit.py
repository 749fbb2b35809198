"""The periodic instance usage audit of a compute host (Nova's
_instance_usage_audit), behind [DEFAULT]/instance_usage_audit: once per
completed audit period, compute.instance.exists for every instance the
host had in the period, the run recorded in task_log (RUNNING, then DONE
with the instance and error counts)."""
import time

from oslo_log import log as logging

from keel.conf import CONF
from keel import exception
from keel.notifications import audit
from keel.notifications import instance_actions as notify
from keel import objects

LOG = logging.getLogger(__name__)
TASK_NAME = "instance_usage_audit"
_ATTRS = ["system_metadata", "info_cache", "metadata", "flavor"]
# host -> the last (begin, end) audited or found audited by this process
_DONE = {}


def instance_usage_audit(mgr, context):
    if not CONF.instance_usage_audit:
        return
    begin, end = audit.last_completed_audit_period()
    if _DONE.get(mgr.host) == (begin, end):
        return
    instances = objects.InstanceList.get_active_by_window_joined(
        context, begin, end, host=mgr.host, expected_attrs=_ATTRS)
    count = len(instances)
    started = time.time()
    task_log = objects.TaskLog(
        context, task_name=TASK_NAME, period_beginning=begin,
        period_ending=end, host=mgr.host, task_items=count,
        message="Instance usage audit started...")
    try:
        task_log.begin_task()
    except exception.TaskAlreadyRunning:
        _DONE[mgr.host] = (begin, end)
        return
    _DONE[mgr.host] = (begin, end)
    LOG.info("Running instance usage audit for host %(host)s from "
             "%(begin)s to %(end)s. %(count)s instances.",
             {"host": mgr.host, "begin": begin, "end": end,
              "count": count})
    errors = 0
    for instance in instances:
        try:
            notify.notify_usage_exists(context, instance, host=mgr.host)
        except Exception:  # noqa: BLE001 - counted, the audit goes on
            LOG.exception("Failed to generate usage audit for instance on "
                          "host %s", mgr.host, instance=instance)
            errors += 1
    task_log.errors = errors
    task_log.message = (
        "Instance usage audit ran for host %s, %s instances in %s seconds."
        % (mgr.host, count, time.time() - started))
    task_log.end_task()
