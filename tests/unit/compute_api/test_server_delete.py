"""compute_api.server_delete's guards and its compare-and-swap, on real
SQLite cell databases (no compute service needed: none of these paths
casts)."""
import uuid

from oslo_utils import timeutils
import pytest

from keel.compute_api import server_delete as delete_api
from keel.compute_api import servers as servers_api
from keel import context as keel_context
from keel import exception
from keel import objects
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import CELL1_UUID
from tests.unit.api.conftest import conf  # noqa: F401

objects.register_all()
PROJECT = "p1"


def _flavor():
    return objects.Flavor(id=1, flavorid="1", name="m1.tiny", memory_mb=512,
                          vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                          extra_specs={}, rxtx_factor=1.0, vcpu_weight=0,
                          disabled=False, is_public=True, description=None)


@pytest.fixture
def admin():
    return keel_context.get_admin_context()


@pytest.fixture
def make(cells_db, admin):  # noqa: F811
    def make(**kw):
        u = str(uuid.uuid4())
        cell = cells_db.mapping(CELL1_UUID)
        fields = dict(uuid=u, project_id=PROJECT, user_id="u1",
                      vm_state="active", task_state=None, power_state=1,
                      flavor=_flavor(), instance_type_id=1, vcpus=1,
                      memory_mb=512, launched_at=timeutils.utcnow(),
                      locked=False, metadata={}, system_metadata={})
        fields.update(kw)
        with keel_context.target_cell(admin, cell) as cctxt:
            objects.Instance(cctxt, **fields).create()
        objects.InstanceMapping(admin, instance_uuid=u, cell_mapping=cell,
                                project_id=PROJECT, user_id="u1").create()
        return servers_api.get(admin, u)
    return make


def _member():
    return keel_context.RequestContext(user_id="u1", project_id=PROJECT,
                                       roles=["member"])


def test_locked_server_refused_to_members_only(make, admin):
    located = make(locked=True, vm_state="soft-delete")
    for op in (delete_api.delete, delete_api.force_delete,
               delete_api.soft_delete, delete_api.restore):
        with pytest.raises(exception.InstanceIsLocked):
            op(_member(), located)
    # An admin passes the lock (and, hostless, the API restores it itself).
    delete_api.restore(admin, located)
    assert servers_api.get(admin, located.instance.uuid).instance.vm_state \
        == "active"


@pytest.mark.parametrize("kw, attr", [
    ({"vm_state": "active"}, "vm_state"),
    ({"vm_state": "soft-delete", "task_state": "restoring"}, "task_state"),
    ({"vm_state": "soft-delete", "launched_at": None}, "launched_at"),
])
def test_restore_state_guards(make, admin, kw, attr):
    located = make(**kw)
    with pytest.raises(exception.InstanceInvalidState) as err:
        delete_api.restore(admin, located)
    assert err.value.kwargs["attr"] == attr


def test_soft_delete_needs_a_launched_server(make, admin):
    located = make(launched_at=None, vm_state="building")
    with pytest.raises(exception.InstanceInvalidState) as err:
        delete_api.soft_delete(admin, located)
    assert err.value.kwargs["attr"] == "launched_at"
    # Nothing was written.
    assert servers_api.get(admin, located.instance.uuid).instance \
        .task_state is None


def test_disable_terminate_is_a_silent_no_op(make, admin):
    located = make(disable_terminate=True, host="h1")
    delete_api.delete(admin, located)
    inst = servers_api.get(admin, located.instance.uuid).instance
    assert inst.task_state is None and inst.vm_state == "active"


def test_mark_rereads_after_a_concurrent_change(make, admin):
    located = make(task_state="spawning", host="h1")
    inst = located.instance
    # Another writer moves the instance on after we read it.
    other = servers_api.get(admin, inst.uuid).instance
    other.task_state = None
    other.save(expected_task_state=["spawning"])
    original = delete_api._mark(inst, {"task_state": "deleting"})
    assert original is None
    fresh = servers_api.get(admin, inst.uuid).instance
    assert fresh.task_state == "deleting" and fresh.progress == 0


def test_mark_of_a_vanished_instance_raises_not_found(make, admin):
    located = make(host="h1")
    servers_api.get(admin, located.instance.uuid).instance.destroy()
    with pytest.raises(exception.InstanceNotFound):
        delete_api._mark(located.instance, {"task_state": "deleting"})


def test_restore_over_quota_says_how_many(make, admin, conf):  # noqa: F811
    conf.config(instances=1, group="quota")
    make()  # counts: one active instance already
    located = make(vm_state="soft-delete")
    with pytest.raises(exception.TooManyInstances) as err:
        delete_api.restore(admin, located)
    assert err.value.format_message() == (
        "Quota exceeded for instances: Requested 1, but already used 1 of "
        "1 instances")
    assert err.value.code == 403


def test_get_follows_a_build_request_the_conductor_just_consumed(
        cells_db, admin, monkeypatch):  # noqa: F811
    # The mapping is read without a cell; before the BuildRequest is read
    # the conductor creates the instance, maps it and removes the request:
    # the server is found in its cell, not reported missing (which would
    # make a DELETE during scheduling a 404 on a server that then boots).
    u = str(uuid.uuid4())
    cell = cells_db.mapping(CELL1_UUID)
    objects.InstanceMapping(admin, instance_uuid=u, cell_mapping=None,
                            project_id=PROJECT, user_id="u1").create()

    def conductor_commits(ctx, instance_uuid):
        # The conductor's own context (another process in real life).
        conductor = keel_context.get_admin_context()
        with keel_context.target_cell(conductor, cell) as cctxt:
            objects.Instance(cctxt, uuid=u, project_id=PROJECT,
                             user_id="u1", vm_state="building",
                             flavor=_flavor(), metadata={},
                             system_metadata={}).create()
        mapping = objects.InstanceMapping.get_by_instance_uuid(conductor, u)
        mapping.cell_mapping = cell
        mapping.save()
        raise exception.BuildRequestNotFound(uuid=instance_uuid)
    monkeypatch.setattr(objects.BuildRequest, "get_by_instance_uuid",
                        conductor_commits)
    located = servers_api.get(admin, u)
    assert located.cell.uuid == CELL1_UUID
    assert located.instance.vm_state == "building"


def test_server_action_registry():
    from keel.api.handlers import server_actions
    from keel.api import routes
    server_actions.load_action_modules()
    served = routes.ROUTES["/servers/{id}/action"]["POST"].actions
    assert {"restore", "forceDelete"} <= set(served)
    assert served.keys() == server_actions.registered().keys()
    with pytest.raises(ValueError):
        server_actions.register("restore", lambda req, id: None)
