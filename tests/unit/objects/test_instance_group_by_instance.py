"""InstanceGroup.get_by_instance_uuid: one Core SELECT giving what the ORM
query (the group with its policy and members) gave."""
import threading

from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from keel.db.api import models
from keel.db import session
from keel import exception
from keel import objects


def _uuids(n):
    return [uuidutils.generate_uuid() for _ in range(n)]


def _group(ctx, members, **kw):
    group = objects.InstanceGroup(ctx, project_id="fake-project",
                                  user_id="fake-user", members=members, **kw)
    group.create()
    return group


def _orm_lookup(ctx, instance_uuid):
    """The ORM query get_by_instance_uuid made before (three statements)."""
    member = models.InstanceGroupMember
    return objects.InstanceGroup._get_one(
        ctx, exception.InstanceGroupNotFound(group_uuid=''),
        models.InstanceGroup.id.in_(
            sa.select(member.group_id)
            .where(member.instance_uuid == instance_uuid)))


def _same(a, b):
    assert a.obj_to_primitive() == b.obj_to_primitive()
    assert (a.policy, a.policies, a.rules, a.members) == \
        (b.policy, b.policies, b.rules, b.members)
    assert a.obj_what_changed() == set()


def test_same_group_as_the_orm_query(ctx):
    web, db, lone, both = _uuids(3), _uuids(1), _uuids(2), _uuids(1)[0]
    _group(ctx, web + [both], name="web", policy="anti-affinity",
           _rules={"max_server_per_host": "2"})
    _group(ctx, db, name="db", policy="affinity")
    _group(ctx, lone, name=None)          # no policy row at all
    _group(ctx, [both], name="later", policy="soft-affinity")
    for uuid in web + db + lone + [both]:
        got = objects.InstanceGroup.get_by_instance_uuid(ctx, uuid)
        _same(got, _orm_lookup(ctx, uuid))
        assert got._context is ctx
    got = objects.InstanceGroup.get_by_instance_uuid(ctx, web[1])
    assert (got.name, got.policy, got.policies, got.rules) == (
        "web", "anti-affinity", ["anti-affinity"],
        {"max_server_per_host": "2"})
    assert got.members == web + [both]
    assert got.created_at is not None and got.deleted is False
    assert objects.InstanceGroup.get_by_instance_uuid(
        ctx, lone[0]).policies == []
    # in two groups: the first one (lowest id), as before
    assert objects.InstanceGroup.get_by_instance_uuid(ctx, both).name == \
        "web"
    # hosts still lazy-loads from the members (none mapped here)
    assert got.hosts == []


def test_not_a_member(ctx):
    _group(ctx, _uuids(1), name="g", policy="affinity")
    with pytest.raises(exception.InstanceGroupNotFound):
        objects.InstanceGroup.get_by_instance_uuid(ctx, _uuids(1)[0])


def test_several_policy_rows_list_each_member_once(ctx):
    members = _uuids(3)
    group = _group(ctx, members, name="g", policy="affinity")
    with session.api_writer(ctx) as s:
        s.add(models.InstanceGroupPolicy(policy="anti-affinity",
                                         group_id=group.id))
    got = objects.InstanceGroup.get_by_instance_uuid(ctx, members[2])
    _same(got, _orm_lookup(ctx, members[2]))
    assert got.members == members and got.policy == "affinity"


def test_one_statement(ctx):
    members = _uuids(4)
    _group(ctx, members, name="g", policy="anti-affinity",
           _rules={"max_server_per_host": "1"})
    seen, me = [], threading.get_ident()

    def note(conn, cursor, statement, *args):
        if threading.get_ident() == me:
            seen.append(statement)

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", note)
    try:
        objects.InstanceGroup.get_by_instance_uuid(ctx, members[0])
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", note)
    selects = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) == 1, seen
    # built once: the same statement object on every call
    from keel.objects import instance_group
    assert instance_group._by_instance_statement() is \
        instance_group._by_instance_statement()
