"""The cross-cell merge's pieces: sort parameters, the order the merge
uses (which must be the databases'), and the filters applied in Python."""
import datetime

import pytest

from keel.compute_api import instance_list
from keel.compute_api import server_status
from keel import exception
from keel import objects

objects.register_all()
T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def _inst(uuid, name=None, minutes=0, **kw):
    inst = objects.Instance(uuid=uuid, display_name=name,
                            created_at=T0 + datetime.timedelta(
                                minutes=minutes), **kw)
    return inst


def test_servers_sort_params_defaults_and_padding():
    assert instance_list.process_sort_params(None, None) == (
        ["created_at", "uuid"], ["desc", "desc"])
    keys, dirs = instance_list.process_sort_params(
        ["display_name", "host"], ["asc"])
    assert keys == ["display_name", "host", "created_at", "uuid"]
    assert dirs == ["asc"] * 4
    with pytest.raises(exception.InvalidInput):
        instance_list.process_sort_params(["host"], ["asc", "desc"])
    with pytest.raises(exception.InvalidInput):
        instance_list.process_sort_params(["host"], ["up"])


U = ["00000000-0000-0000-0000-00000000000%d" % i for i in range(10)]


def _order(instances, keys, dirs):
    keys, dirs = instance_list.process_sort_params(keys, dirs)
    return [i.uuid for i in sorted(
        instances, key=lambda i: instance_list.sort_key_of(i, keys, dirs))]


def test_servers_sort_key_orders_nulls_first_ascending_and_last_descending():
    a = _inst(U[1], "a", 1)
    none = _inst(U[2], None, 2)
    b = _inst(U[3], "b", 3)
    assert _order([b, a, none], ["display_name"], ["asc"]) == \
        [U[2], U[1], U[3]]
    assert _order([b, a, none], ["display_name"], ["desc"]) == \
        [U[3], U[1], U[2]]


def test_servers_uuid_breaks_ties_so_the_order_is_total():
    same = [_inst(U[i], "x", 0) for i in (3, 1, 2)]
    assert _order(same, ["display_name"], ["asc"]) == [U[1], U[2], U[3]]


def test_servers_heap_merge_of_sorted_streams_equals_a_global_sort():
    import heapq
    every = [_inst(U[i], f"n{i % 3}", i) for i in range(10)]
    keys, dirs = instance_list.process_sort_params(["display_name"],
                                                   ["desc"])

    def key(i):
        return instance_list.sort_key_of(i, keys, dirs)
    streams = [sorted(every[0::2], key=key), sorted(every[1::2], key=key)]
    merged = [i.uuid for i in heapq.merge(*streams, key=key)]
    assert merged == [i.uuid for i in sorted(every, key=key)]


def test_servers_python_filters():
    inst = _inst(U[1], "web-1", 0, vm_state="active", project_id="p",
                 key_name="k1")
    inst.tags = objects.TagList(objects=[objects.Tag(tag="a"),
                                         objects.Tag(tag="b")])
    inst.info_cache = objects.InstanceInfoCache(network_info=[{
        "address": "fa:16:3e:00:00:01", "network": {"label": "net",
            "subnets": [{"version": 4, "ips": [
                {"address": "10.1.2.3", "version": 4, "type": "fixed",
                 "floating_ips": [{"address": "172.24.4.9",
                                   "type": "floating", "version": 4}]}]}]}}])
    match = instance_list.python_match
    assert match(inst, {"display_name": "^web"})
    assert not match(inst, {"display_name": "^db"})
    assert match(inst, {"key_name": "k"})
    assert match(inst, {"ip": "10.1.2"}) and match(inst, {"ip": "172.24"})
    assert not match(inst, {"ip6": "."})
    assert match(inst, {"tags": ["a", "b"]})
    assert not match(inst, {"tags": ["a", "c"]})
    assert match(inst, {"tags-any": ["c", "b"]})
    assert not match(inst, {"not-tags": ["a", "b"]})
    assert match(inst, {"not-tags": ["a", "c"]})
    assert not match(inst, {"not-tags-any": ["c", "b"]})
    assert match(inst, {"vm_state": ["active", "stopped"]})
    assert not match(inst, {"project_id": "q"})


def test_servers_split_filters_sends_what_sql_knows_to_the_cells():
    db, py = instance_list.split_filters(
        {"project_id": "p", "display_name": "x", "ip": "1", "node": "n",
         "not-tags": ["a"], "deleted": False})
    assert set(db) == {"project_id", "display_name", "deleted"}
    assert set(py) == {"ip", "node", "not-tags"}


@pytest.mark.parametrize("vm,task,status", [
    ("active", None, "ACTIVE"), ("active", "rebooting", "REBOOT"),
    ("active", "reboot_started_hard", "HARD_REBOOT"),
    ("active", "powering-off", "ACTIVE"), ("stopped", "resize_prep",
                                           "RESIZE"),
    ("stopped", "powering-on", "SHUTOFF"),
    ("resized", "resize_reverting", "REVERT_RESIZE"),
    ("resized", "resize_confirming", "VERIFY_RESIZE"),
    ("paused", "migrating", "MIGRATING"), ("error", "rebuilding", "REBUILD"),
    ("soft-delete", None, "SOFT_DELETED"),
    ("shelved_offloaded", None, "SHELVED_OFFLOADED"),
    ("building", "spawning", "BUILD"), ("nonsense", None, "UNKNOWN")])
def test_servers_status_mapping(vm, task, status):
    assert server_status.status_from_state(vm, task) == status


def test_servers_deleted_row_shows_deleted_and_reverse_mapping():
    inst = objects.Instance(vm_state="active", task_state=None, deleted=True)
    assert server_status.server_status(inst) == "DELETED"
    assert server_status.states_from_status("active") == (["active"], None)
    vms, tasks = server_status.states_from_status("REBOOT")
    assert vms == ["active"] and "rebooting" in tasks
    assert server_status.states_from_status("bogus") == ([], [])
