"""The API-database records of accepted servers.

For every instance a RequestSpec, a BuildRequest (holding the whole
Instance) and an InstanceMapping without a cell, all instances of the
request in ONE transaction: either every server of the request exists for
the API (show, list, delete) or none does.
"""
import sqlalchemy as sa

from keel.db.api import models as api_models
from keel.db import session
from keel import exception
from keel import objects


def write(ctx, records, group=None):
    """``records``: ``[(request_spec, build_request, instance_mapping)]``;
    the servers join ``group`` (a server group hint) in the same
    transaction.

    The objects' own create() join the enclosing writer transaction
    (enginefacade nests on the same context)."""
    with session.api_writer(ctx):
        for spec, build_request, mapping in records:
            spec.create()
            build_request.create()
            mapping.create()
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
