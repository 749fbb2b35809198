"""os-instance_usage_audit_log over SQLite cells, with task_log rows
written by the compute's periodic usage audit: the samples' shapes, the
period arithmetic, Nova's 400 for a bad time, the admin policy, and the
periodic task itself (once per period, errors counted, behind
[DEFAULT]/instance_usage_audit)."""
import datetime
import urllib.parse

import pytest

from keel.compute.ops import usage_audit
from keel import context as keel_context
from keel import exception
from keel.notifications import audit
from keel.notifications import instance_actions
from keel import objects
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.functional.api.fixtures_cells import member_env  # noqa: F401
from tests.unit.api import samples
from tests.unit.api.conftest import call
from tests.unit.api.resources.test_services import seed_services

INDEX = "os-instance-usage-audit-log/inst-usage-audit-log-index-get-resp.json"
SHOW = "os-instance-usage-audit-log/inst-usage-audit-log-show-get-resp.json"


class _Compute:
    def __init__(self, host):
        self.host = host


def _cell1(cells):
    ctx = keel_context.get_admin_context()
    with keel_context.target_cell(ctx, cells.mapping(CELL1_UUID)) as cctxt:
        return cctxt


@pytest.fixture(autouse=True)
def fresh_compute_memory(monkeypatch):
    monkeypatch.setattr(usage_audit, "_DONE", {})


@pytest.fixture
def audited(api_env, cells_db, conf):  # noqa: F811
    """host1 and host2 run computes; host1 audited the last period (two
    instances alive in it, one created after it)."""
    seed_services(cells_db)
    cctxt = _cell1(cells_db)
    begin, end = audit.last_completed_audit_period()
    for launched in (begin - datetime.timedelta(days=3),
                     begin + datetime.timedelta(hours=1),
                     end + datetime.timedelta(minutes=1)):
        objects.Instance(cctxt, host="host1", project_id="p", user_id="u",
                         vm_state="active", launched_at=launched).create()
    conf.config(instance_usage_audit=True)
    usage_audit.instance_usage_audit(_Compute("host1"), cctxt)
    return api_env


def _same_shape(got, sample_file, key):
    want = samples.load(sample_file)
    got_log = got[key].pop("log")
    want_log = want[key].pop("log")
    assert samples.shape_differences(got, want) == []
    entry = next(iter(want_log.values()))
    for value in got_log.values():
        assert samples.shape_differences(value, entry) == []


def test_index_matches_sample(audited):
    resp = call(audited, "/v2.1/os-instance_usage_audit_log")
    assert resp.status_int == 200, resp.text
    body = resp.json["instance_usage_audit_logs"]
    begin, end = audit.last_completed_audit_period()
    assert body["period_beginning"] == str(begin)
    assert body["period_ending"] == str(end)
    assert body["num_hosts"] == 2 and body["num_hosts_done"] == 1
    assert body["num_hosts_not_run"] == 1
    assert body["hosts_not_run"] == ["host2"]
    assert body["total_instances"] == 2 and body["total_errors"] == 0
    assert body["overall_status"] == "1 of 2 hosts done. 0 errors."
    log = body["log"]["host1"]
    assert log["state"] == "DONE" and log["instances"] == 2
    assert log["message"].startswith(
        "Instance usage audit ran for host host1, 2 instances in ")
    _same_shape(resp.json, INDEX, "instance_usage_audit_logs")


def test_show_by_time(audited):
    begin, end = audit.last_completed_audit_period()
    for when in (str(end + datetime.timedelta(seconds=1)),
                 str(end + datetime.timedelta(microseconds=5))):
        resp = call(audited, "/v2.1/os-instance_usage_audit_log/" +
                    urllib.parse.quote(when))
        assert resp.status_int == 200, resp.text
        body = resp.json["instance_usage_audit_log"]
        assert body["period_beginning"] == str(begin)
        assert body["num_hosts_done"] == 1
        _same_shape(resp.json, SHOW, "instance_usage_audit_log")
    resp = call(audited, "/v2.1/os-instance_usage_audit_log/" +
                urllib.parse.quote("2012-07-05 10:00:00"))
    body = resp.json["instance_usage_audit_log"]
    assert body["period_beginning"] == "2012-06-01 00:00:00"
    assert body["period_ending"] == "2012-07-01 00:00:00"
    assert body["log"] == {} and body["num_hosts_not_run"] == 2
    assert body["overall_status"] == "0 of 2 hosts done. 0 errors."


@pytest.mark.parametrize("bad", ["yesterday", "2012-07-05", "2012-13-01 "
                                 "00:00:00", "2012-07-05 10:00:00.x"])
def test_show_bad_time(audited, bad):
    resp = call(audited, "/v2.1/os-instance_usage_audit_log/" +
                urllib.parse.quote(bad))
    assert resp.status_int == 400
    assert resp.json == {"badRequest": {
        "code": 400, "message": f"Invalid timestamp for date {bad}"}}


def test_query_refused_from_2_102(audited):
    for version, status in (("2.101", 200), ("2.102", 400)):
        resp = call(audited, "/v2.1/os-instance_usage_audit_log?x=1",
                    headers={"OpenStack-API-Version": f"compute {version}"})
        assert resp.status_int == status


def test_admin_only(member_env, cells_db):  # noqa: F811
    for path, rule in (("", "list"), ("/2012-07-05%2010:00:00", "show")):
        resp = call(member_env, "/v2.1/os-instance_usage_audit_log" + path)
        assert resp.status_int == 403
        assert resp.json["forbidden"]["message"] == (
            "Policy doesn't allow os_compute_api:os-instance-usage-audit-"
            f"log:{rule} to be performed.")


def test_periodic_once_per_period_and_errors(cells_db, conf,  # noqa: F811
                                             monkeypatch):
    seed_services(cells_db)
    cctxt = _cell1(cells_db)
    begin, end = audit.last_completed_audit_period()
    for _ in range(2):
        objects.Instance(cctxt, host="host2", project_id="p", user_id="u",
                         vm_state="active",
                         launched_at=begin).create()
    compute = _Compute("host2")
    usage_audit.instance_usage_audit(compute, cctxt)  # option off
    assert objects.TaskLog.get(cctxt, "instance_usage_audit", begin, end,
                               "host2") is None
    conf.config(instance_usage_audit=True)
    sent = []

    def fail_one(context, instance, host=None, **kw):
        sent.append(instance.uuid)
        if len(sent) == 1:
            raise RuntimeError("boom")
    monkeypatch.setattr(instance_actions, "notify_usage_exists", fail_one)
    usage_audit.instance_usage_audit(compute, cctxt)
    usage_audit.instance_usage_audit(compute, cctxt)  # remembered: done
    monkeypatch.setattr(usage_audit, "_DONE", {})  # a restarted compute
    usage_audit.instance_usage_audit(compute, cctxt)  # the row says done
    assert len(sent) == 2
    log = objects.TaskLog.get(cctxt, "instance_usage_audit", begin, end,
                              "host2")
    assert (log.state, log.task_items, log.errors) == ("DONE", 2, 1)
    logs = objects.TaskLogList.get_all(cctxt, "instance_usage_audit",
                                       begin, end)
    assert [entry.host for entry in logs] == ["host2"]


def test_task_log_states(cells_db):  # noqa: F811
    cctxt = _cell1(cells_db)
    begin = datetime.datetime(2026, 1, 1)
    end = datetime.datetime(2026, 2, 1)
    log = objects.TaskLog(cctxt, task_name="t", period_beginning=begin,
                          period_ending=end, host="h", task_items=3,
                          message="started")
    missing = objects.TaskLog(cctxt, task_name="t", period_beginning=begin,
                              period_ending=end, host="other", errors=0,
                              message="x")
    with pytest.raises(exception.TaskNotRunning):
        missing.end_task()
    log.begin_task()
    assert log.state == "RUNNING"
    again = objects.TaskLog(cctxt, task_name="t", period_beginning=begin,
                            period_ending=end, host="h", task_items=3,
                            message="started")
    with pytest.raises(exception.TaskAlreadyRunning):
        again.begin_task()
    log.errors = 2
    log.message = "done"
    log.end_task()
    got = objects.TaskLog.get(cctxt, "t", begin, end, "h")
    assert (got.state, got.errors, got.message, got.task_items) == \
        ("DONE", 2, "done", 3)
    assert objects.TaskLog.get(cctxt, "t", begin, end, "h",
                               state="RUNNING") is None
