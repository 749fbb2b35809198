"""Instance actions and their events, read in the instance's cell."""
import hashlib

from keel import context as keel_context
from keel import exception
from keel import objects


def get_instance(ctx, server_id, read_deleted=False):
    """``(instance, cell_ctx)`` through the instance mapping;
    InstanceNotFound when unmapped, not yet in a cell, or missing."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(ctx,
                                                               server_id)
    except exception.NotFound:
        raise exception.InstanceNotFound(instance_id=server_id)
    if mapping.cell_mapping is None:
        raise exception.InstanceNotFound(instance_id=server_id)
    with keel_context.target_cell(ctx, mapping.cell_mapping) as cctxt:
        if read_deleted:
            cctxt.read_deleted = "yes"
        instance = objects.Instance.get_by_uuid(cctxt, server_id)
        cctxt.read_deleted = ctx.read_deleted
        return instance, cctxt


def list_actions(cctxt, instance, limit=None, marker=None, filters=None):
    return objects.InstanceActionList.get_by_instance_uuid(
        cctxt, instance.uuid, limit=limit, marker=marker, filters=filters)


def get_action(cctxt, instance, request_id):
    try:
        return objects.InstanceAction.get_by_request_id(
            cctxt, instance.uuid, request_id)
    except exception.NotFound:
        return None


def list_events(cctxt, action_id):
    return objects.InstanceActionEventList.get_by_action(cctxt, action_id)


def host_id(host, project_id):
    """Nova's obfuscated host id: the same host looks different to each
    project."""
    if not host:
        return ""
    return hashlib.sha224((project_id + host).encode("utf-8")).hexdigest()
