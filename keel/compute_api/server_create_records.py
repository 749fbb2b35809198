"""The API-database records of accepted servers.

For every instance a RequestSpec, a BuildRequest (holding the whole
Instance) and an InstanceMapping without a cell, all instances of the
request in ONE transaction: either every server of the request exists for
the API (show, list, delete) or none does.
"""
from keel.db import session
from keel import exception
from keel import objects


def write(ctx, records):
    """``records``: ``[(request_spec, build_request, instance_mapping)]``.

    The objects' own create() join the enclosing writer transaction
    (enginefacade nests on the same context)."""
    with session.api_writer(ctx):
        for spec, build_request, mapping in records:
            spec.create()
            build_request.create()
            mapping.create()


def remove(ctx, records):
    """Undo ``write`` (quota re-check failed): whatever is still there."""
    uuids = [br.instance_uuid for _s, br, _m in records]
    with session.api_writer(ctx):
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
