"""Reads of instances by a user context, as Nova 34's DB API: the lookups
by uuid and id (_build_instance_get: model_query(project_only=True)) find
only the context's project's instances; get_by_filters and get_all
(instance_get_all_by_filters_sort, instance_get_all) return, for a context
that is not admin, its project's instances (else its user's); the lookups
by host do not look at the project."""
import pytest

from keel import context as keel_context
from keel import exception
from keel import objects
from tests.unit.objects.test_instance_db import _instance


def _user(project="fake-project", user="fake-user"):
    return keel_context.RequestContext(user_id=user, project_id=project)


@pytest.fixture
def two_projects(ctx):
    mine = _instance(ctx)
    theirs = _instance(_user("other-project", "other-user"),
                       project_id="other-project", user_id="other-user")
    return mine, theirs


def test_get_by_uuid_and_id_of_another_project_is_not_found(ctx,
                                                            two_projects):
    mine, theirs = two_projects
    assert objects.Instance.get_by_uuid(ctx, mine.uuid).id == mine.id
    assert objects.Instance.get_by_id(ctx, mine.id).uuid == mine.uuid
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_uuid(ctx, theirs.uuid)
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_id(ctx, theirs.id)


@pytest.mark.parametrize("who", ["admin", "elevated", "no-project"])
def test_admin_elevated_and_projectless_contexts_read_any(ctx, two_projects,
                                                          who):
    _mine, theirs = two_projects
    reader = {"admin": keel_context.get_admin_context(),
              "elevated": ctx.elevated(),
              # Not a user context for Nova's is_user_context.
              "no-project": _user(project=None)}[who]
    assert objects.Instance.get_by_uuid(reader, theirs.uuid).id == theirs.id
    assert objects.Instance.get_by_id(reader, theirs.id).uuid == theirs.uuid


def test_lazy_load_of_own_instance_still_works(ctx, two_projects):
    mine, _theirs = two_projects
    plain = objects.Instance.get_by_uuid(ctx, mine.uuid)
    assert plain.metadata == {"role": "web"}


def _uuids(found):
    return sorted(i.uuid for i in found)


def test_get_by_filters_keeps_a_user_to_its_project(ctx, two_projects):
    mine, theirs = two_projects
    assert _uuids(objects.InstanceList.get_by_filters(ctx, {})) == \
        [mine.uuid]
    # Asking for another project does not widen it (Nova replaces the
    # project_id filter of a context that is not admin).
    assert _uuids(objects.InstanceList.get_by_filters(
        ctx, {"project_id": "other-project"})) == [mine.uuid]
    assert _uuids(objects.InstanceList.get_all(ctx)) == [mine.uuid]
    admin = keel_context.get_admin_context()
    assert _uuids(objects.InstanceList.get_by_filters(admin, {})) == \
        sorted([mine.uuid, theirs.uuid])
    assert _uuids(objects.InstanceList.get_by_filters(
        admin, {"project_id": "other-project"})) == [theirs.uuid]
    assert _uuids(objects.InstanceList.get_by_filters(ctx.elevated(),
                                                      {})) == \
        sorted([mine.uuid, theirs.uuid])


def test_get_by_filters_of_a_projectless_context_is_by_user(ctx,
                                                            two_projects):
    _mine, theirs = two_projects
    found = objects.InstanceList.get_by_filters(
        _user(project=None, user="other-user"), {})
    assert _uuids(found) == [theirs.uuid]


def test_lookups_by_host_do_not_filter_on_project(ctx, two_projects):
    mine, theirs = two_projects
    both = sorted([mine.uuid, theirs.uuid])
    assert _uuids(objects.InstanceList.get_by_host(ctx, "host1")) == both
    assert _uuids(objects.InstanceList.get_by_host_and_node(
        ctx, "host1", "node1")) == both
