"""Server groups (API database) and the live members of a page of them.

Members are instance uuids; the API shows only those whose instance is not
deleted, so a page of groups is resolved with one mapping query and one
query per cell involved, whatever the number of groups.
"""
import collections

import sqlalchemy as sa

from keel.conf import CONF
from keel.compute_api import quota
from keel import context as keel_context
from keel.db.cell import models as cell_models
from keel.db import session
from keel import exception
from keel import objects


def get(ctx, group_uuid):
    return objects.InstanceGroup.get_by_uuid(ctx, group_uuid)


def list_groups(ctx, project_id=None):
    if project_id is None:
        return list(objects.InstanceGroupList.get_all(ctx))
    return list(objects.InstanceGroupList.get_by_project_id(ctx, project_id))


def live_members(ctx, groups):
    """The set of member uuids whose instance exists and is not deleted
    (members not yet scheduled to a cell count as live, as in Nova)."""
    uuids = sorted({m for g in groups for m in (g.members or [])})
    if not uuids:
        return set()
    live, by_cell, cells = set(), collections.defaultdict(list), {}
    for im in objects.InstanceMappingList.get_by_instance_uuids(ctx, uuids):
        if im.cell_mapping is None:
            live.add(im.instance_uuid)
            continue
        cells[im.cell_mapping.uuid] = im.cell_mapping
        by_cell[im.cell_mapping.uuid].append(im.instance_uuid)
    inst = cell_models.Instance
    for cell_uuid, cell_uuids in by_cell.items():
        with keel_context.target_cell(ctx, cells[cell_uuid]) as cctxt:
            try:
                with session.cell_reader(cctxt) as s:
                    live.update(s.execute(sa.select(inst.uuid).where(
                        inst.uuid.in_(cell_uuids),
                        inst.deleted == 0)).scalars())
            except Exception:  # noqa: BLE001 - a down cell hides nothing
                live.update(cell_uuids)
    return live


def _check_quota(ctx, delta):
    try:
        quota.check_deltas(ctx, {"server_groups": delta}, ctx.project_id,
                           ctx.user_id)
    except exception.OverQuota:
        raise exception.Forbidden(
            "Quota exceeded, too many server groups.")


def create(ctx, name, policy, rules=None):
    """Create after a quota check, and re-check afterwards when
    [quota]/recheck_quota is set (a racing create is undone)."""
    _check_quota(ctx, 1)
    group = objects.InstanceGroup(ctx, name=name, policy=policy,
                                  policies=[policy],
                                  project_id=ctx.project_id,
                                  user_id=ctx.user_id)
    if rules:
        group._rules = {k: str(v) for k, v in rules.items()}
    group.create()
    if CONF.quota.recheck_quota:
        try:
            _check_quota(ctx, 0)
        except exception.Forbidden:
            group.destroy()
            raise
    return group


def delete(ctx, group):
    group.destroy()
