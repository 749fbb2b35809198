"""The API-database records of accepted servers.

For every instance a RequestSpec, a BuildRequest (holding the whole
Instance) and an InstanceMapping without a cell, all instances of the
request in ONE transaction: either every server of the request exists for
the API (show, list, delete) or none does.
"""
from oslo_utils import timeutils
import sqlalchemy as sa

from keel.db.api import models as api_models
from keel.db import session
from keel import exception
from keel import objects
from keel.objects import db_helpers

# Plain INSERTs, built once: the rows are new, so the ORM's unit of work
# (and InstanceMapping.create's re-read of the row it just wrote) buys
# nothing here.
_SPEC = api_models.RequestSpec.__table__.insert()
_MAPPING = api_models.InstanceMapping.__table__.insert()


def _spec(s, spec, now):
    db_helpers.check_not_created(spec)
    spec.id = s.execute(_SPEC, {
        "instance_uuid": spec.instance_uuid, "spec": spec._spec_blob(),
        "created_at": now, "updated_at": None}).inserted_primary_key[0]
    spec.obj_reset_changes(recursive=True)


def _mapping(s, mapping, now):
    """As InstanceMapping.create, without reading the row back: a new
    mapping has no cell yet and nothing the database fills in but its
    id."""
    db_helpers.check_not_created(mapping)
    values = mapping._values_for_db()
    values.setdefault("queued_for_delete", False)
    values.update(created_at=now, updated_at=None)
    with db_helpers.translate_duplicates(
            lambda e: exception.ObjectActionError(
                action="create",
                reason="instance %s already mapped" % mapping.instance_uuid)):
        mapping.id = s.execute(_MAPPING, values).inserted_primary_key[0]
    mapping.created_at = now
    mapping.updated_at = None
    mapping.queued_for_delete = bool(values["queued_for_delete"])
    if values.get("cell_id") is None:
        mapping.cell_mapping = None
    mapping.obj_reset_changes()


def write(ctx, records, group=None):
    """``records``: ``[(request_spec, build_request, instance_mapping)]``;
    the servers join ``group`` (a server group hint) in the same
    transaction."""
    now = timeutils.utcnow()
    with session.api_writer(ctx) as s:
        for spec, build_request, mapping in records:
            _spec(s, spec, now)
            build_request.insert(s)
            _mapping(s, mapping, now)
        if group is not None:
            added = objects.InstanceGroup.add_members(
                ctx, group.uuid, [br.instance_uuid for _s, br, _m in records])
            group.members = list(group.members or []) + added


def remove(ctx, records, group=None):
    """Undo ``write`` (quota re-check failed): whatever is still there."""
    uuids = [br.instance_uuid for _s, br, _m in records]
    with session.api_writer(ctx) as s:
        if group is not None:
            member = api_models.InstanceGroupMember
            s.execute(sa.delete(member).where(
                member.group_id == group.id,
                member.instance_uuid.in_(uuids)))
        for spec, build_request, _mapping in records:
            for obj, missing in ((build_request,
                                  exception.BuildRequestNotFound),
                                 (spec, exception.RequestSpecNotFound)):
                try:
                    obj.destroy()
                except missing:
                    pass
        objects.InstanceMappingList.destroy_bulk_by_instance_uuids(ctx,
                                                                   uuids)
