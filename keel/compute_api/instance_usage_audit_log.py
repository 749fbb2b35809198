"""The instance usage audit's state for one audit period: the computes'
task_log records against the compute services (disabled ones included:
they may have instances), as Nova's API reads them (both from the cell
database the API is configured with, [database]/connection)."""
from keel.notifications import audit
from keel import objects

TASK_NAME = "instance_usage_audit"


def audit_log(ctx, before=None):
    """The audit of the period last completed before ``before`` (now)."""
    begin, end = audit.last_completed_audit_period(before=before)
    task_logs = list(objects.TaskLogList.get_all(ctx, TASK_NAME, begin,
                                                 end))
    hosts = {s.host for s in objects.ServiceList.get_all(ctx)
             if s.topic == "compute"}
    seen, done, running = set(), set(), set()
    total_errors = total_items = 0
    for log in task_logs:
        seen.add(log.host)
        if log.state == "DONE":
            done.add(log.host)
        elif log.state == "RUNNING":
            running.add(log.host)
        total_errors += log.errors or 0
        total_items += log.task_items or 0
    missing = hosts - seen
    progress = "ALL" if len(done) == len(hosts) else \
        f"{len(done)} of {len(hosts)}"
    return {
        "period_beginning": str(begin),
        "period_ending": str(end),
        "num_hosts": len(hosts),
        "num_hosts_done": len(done),
        "num_hosts_running": len(running),
        "num_hosts_not_run": len(missing),
        "hosts_not_run": sorted(missing),
        "total_instances": total_items,
        "total_errors": total_errors,
        "overall_status": f"{progress} hosts done. {total_errors} errors.",
        "log": {log.host: {"state": log.state, "instances": log.task_items,
                           "errors": log.errors, "message": log.message}
                for log in task_logs},
    }
