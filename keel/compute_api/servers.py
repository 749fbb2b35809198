"""Servers seen through the API: find one (in its cell, or as a BuildRequest
while it builds), update its name/description/hostname/access IPs, its
metadata and its tags. Create, delete and the actions live elsewhere (the
boot pipeline); this module never talks to a compute service.
"""
from keel import context as keel_context
from keel.compute_api import quota
from keel.db import session
from keel import exception
from keel import objects

# Loaded for show and update, as Nova's API does.
SHOW_ATTRS = ["metadata", "system_metadata", "info_cache", "flavor", "tags",
              "fault", "security_groups", "trusted_certs", "numa_topology"]
# vm_states in which metadata and tags may change (task_state must be None).
_META_STATES = ("active", "paused", "suspended", "stopped")
_TAG_STATES = _META_STATES


class Located:
    """An instance with where it lives: ``cell`` None while building;
    ``build_request`` set then; ``down`` when its cell did not answer."""

    def __init__(self, instance, cell=None, build_request=None, down=False):
        self.instance = instance
        self.cell = cell
        self.build_request = build_request
        self.down = down


def _minimal(ctx, mapping):
    inst = objects.Instance(ctx, uuid=mapping.instance_uuid,
                            project_id=mapping.project_id,
                            user_id=mapping.user_id,
                            created_at=mapping.created_at)
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(
            ctx, mapping.instance_uuid)
    except exception.NotFound:
        return inst
    if spec.obj_attr_is_set("flavor"):
        inst.flavor = spec.flavor
    if spec.obj_attr_is_set("image") and spec.image is not None and \
            spec.image.obj_attr_is_set("id"):
        inst.image_ref = spec.image.id
    if spec.obj_attr_is_set("availability_zone"):
        inst.availability_zone = spec.availability_zone
    return inst


def get(ctx, uuid, expected_attrs=None, cell_down_support=False):
    """The server as a ``Located``; InstanceNotFound (404) when unknown.

    A cell that cannot be read gives a minimal record when the caller
    supports it (2.69+), else the error propagates (Nova's 500 is avoided
    by the handler mapping it to 503 ... or a minimal record).
    """
    attrs = SHOW_ATTRS if expected_attrs is None else expected_attrs
    req = None
    # The mapping and, for a server still building, its BuildRequest in
    # one API-database read (one connection checkout and transaction end
    # instead of two: a client polling a new server asks this often).
    with session.api_reader(ctx):
        try:
            mapping = objects.InstanceMapping.get_by_instance_uuid(ctx,
                                                                   uuid)
        except exception.InstanceMappingNotFound:
            mapping = None
        if mapping is None or mapping.cell_mapping is None:
            try:
                req = objects.BuildRequest.get_by_instance_uuid(ctx, uuid)
            except exception.BuildRequestNotFound:
                pass
    if mapping is None or mapping.cell_mapping is None:
        if req is None:
            # The conductor may have mapped the instance to its cell and
            # removed the BuildRequest since the mapping was read (Nova
            # reads the mapping again too): a new transaction, to see it.
            try:
                mapping = objects.InstanceMapping.get_by_instance_uuid(
                    ctx, uuid)
            except exception.InstanceMappingNotFound:
                mapping = None
            if mapping is None or mapping.cell_mapping is None:
                raise exception.InstanceNotFound(instance_id=uuid)
            return _from_cell(ctx, mapping, attrs, cell_down_support)
        inst = req.instance
        if not inst.obj_attr_is_set("tags"):
            inst.tags = req.tags
        return Located(inst, None, build_request=req)
    return _from_cell(ctx, mapping, attrs, cell_down_support)


def _from_cell(ctx, mapping, attrs, cell_down_support):
    cell = mapping.cell_mapping
    with keel_context.target_cell(ctx, cell) as cctxt:
        try:
            inst = objects.Instance.get_by_uuid(cctxt, mapping.instance_uuid,
                                                expected_attrs=attrs)
        except exception.InstanceNotFound:
            raise
        except Exception:
            if not cell_down_support:
                raise exception.ServiceUnavailable()
            return Located(_minimal(ctx, mapping), cell, down=True)
    return Located(inst, cell)


def check_locked(ctx, instance):
    if instance.locked and not ctx.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=instance.uuid)


def check_state(instance, states, method, idle=True):
    if instance.vm_state not in states:
        raise exception.InstanceInvalidState(
            instance_uuid=instance.uuid, attr="vm_state",
            state=instance.vm_state, method=method)
    if idle and instance.task_state is not None:
        raise exception.InstanceInvalidState(
            instance_uuid=instance.uuid, attr="task_state",
            state=instance.task_state, method=method)


# API body key -> Instance field.
UPDATE_FIELDS = {"name": "display_name", "description": "display_description",
                 "hostname": "hostname", "accessIPv4": "access_ip_v4",
                 "accessIPv6": "access_ip_v6"}


def update(ctx, located, body):
    """Apply ``PUT /servers/{id}`` fields; returns the instance."""
    inst = located.instance
    for key, field in UPDATE_FIELDS.items():
        if key in body:
            setattr(inst, field, body[key])
    if "OS-DCF:diskConfig" in body:
        inst.auto_disk_config = body["OS-DCF:diskConfig"] == "AUTO"
    if "pinned_availability_zone" in body:
        _pin_az(ctx, inst, body["pinned_availability_zone"])
    if located.build_request is not None:
        located.build_request.instance = inst
        located.build_request.save()
    else:
        inst.save()
    return inst


def _pin_az(ctx, inst, zone):
    """Unpin (``None``) or re-pin to the zone the server is in (2.104);
    pinning to another zone is refused."""
    current = inst.availability_zone if inst.obj_attr_is_set(
        "availability_zone") else None
    if zone is not None and zone != current:
        raise exception.InvalidInput(
            reason=f"The server {inst.uuid} can only be pinned to the "
                   f"availability zone it is in ({current}), not {zone}.")
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(ctx, inst.uuid)
    except exception.NotFound:
        return
    spec.availability_zone = zone
    spec.save()


def show_extras(ctx, uuids, specs=True, groups=False):
    """What the server views read from the API database besides the
    servers, in one read: ``(zones, hints)`` as ``request_specs`` (when
    ``specs``) and ``{uuid: [group uuid]}`` (when ``groups``: a show)."""
    zones, hints, by_server = {}, {}, {}
    if not uuids or not (specs or groups):
        return zones, hints, by_server
    with session.api_reader(ctx):
        if specs:
            zones, hints = request_specs(ctx, uuids)
        if groups:
            for uuid in uuids:
                try:
                    group = objects.InstanceGroup.get_by_instance_uuid(
                        ctx, uuid)
                    by_server[uuid] = [group.uuid]
                except exception.NotFound:
                    by_server[uuid] = []
    return zones, hints, by_server


def request_specs(ctx, uuids):
    """``({uuid: pinned availability zone}, {uuid: scheduler hints})``
    from the request specs (one query)."""
    if not uuids:
        return {}, {}
    zones, hints = {}, {}
    for spec in objects.RequestSpec.get_by_instance_uuids(ctx, list(uuids)):
        zones[spec.instance_uuid] = spec.availability_zone \
            if spec.obj_attr_is_set("availability_zone") else None
        raw = spec.scheduler_hints if spec.obj_attr_is_set(
            "scheduler_hints") else None
        hints[spec.instance_uuid] = dict(raw or {})
    return zones, hints


# --- metadata -----------------------------------------------------------

def _check_metadata_quota(ctx, instance, metadata):
    try:
        quota.limit_check(ctx, instance.project_id,
                          metadata_items=len(metadata))
    except exception.OverQuota:
        limits = quota.project_limits(ctx, instance.project_id)
        raise exception.MetadataLimitExceeded(
            allowed=limits["metadata_items"])


def update_metadata(ctx, located, metadata, delete=False):
    """Merge (or replace with ``delete``) the server's metadata; returns
    the resulting dict."""
    inst = located.instance
    check_locked(ctx, inst)
    check_state(inst, _META_STATES, "update metadata")
    new = {} if delete else dict(inst.metadata)
    new.update(metadata)
    _check_metadata_quota(ctx, inst, new)
    inst.metadata = new
    inst.save()
    # Extension point: the boot pipeline's compute RPC
    # (change_instance_metadata) is cast here once it exists.
    return dict(inst.metadata)


def delete_metadata_item(ctx, located, key):
    inst = located.instance
    check_locked(ctx, inst)
    check_state(inst, _META_STATES, "delete metadata")
    if key not in inst.metadata:
        raise exception.NotFound()
    inst.delete_metadata_key(key)


# --- tags -----------------------------------------------------------------

def _tag_target(ctx, located, method):
    inst = located.instance
    # Tags only look at the vm_state (no task_state, no lock check).
    check_state(inst, _TAG_STATES, method, idle=False)
    return inst


def set_tags(ctx, located, tags):
    inst = _tag_target(ctx, located, "update tags")
    with keel_context.target_cell(ctx, located.cell) as cctxt:
        return [t.tag for t in objects.TagList.create(cctxt, inst.uuid,
                                                      tags)]


def check_tag_state(ctx, located):
    _tag_target(ctx, located, "update tag")


def add_tag(ctx, located, tag):
    """Add ``tag``; returns False when it was already there. As Nova, a
    server at the limit refuses even a tag it already has."""
    inst = located.instance
    with keel_context.target_cell(ctx, located.cell) as cctxt:
        names = [t.tag for t in objects.TagList.get_by_resource_id(
            cctxt, inst.uuid)]
        if len(names) >= MAX_TAGS:
            raise exception.InvalidInput(
                reason=f"The number of tags exceeded the per-server limit "
                       f"{MAX_TAGS}")
        if tag in names:
            return False
        objects.Tag(cctxt, resource_id=inst.uuid, tag=tag).create()
    return True


def delete_tag(ctx, located, tag):
    inst = _tag_target(ctx, located, "delete tag")
    with keel_context.target_cell(ctx, located.cell) as cctxt:
        objects.Tag.destroy(cctxt, inst.uuid, tag)


def delete_tags(ctx, located):
    inst = _tag_target(ctx, located, "delete tags")
    with keel_context.target_cell(ctx, located.cell) as cctxt:
        objects.TagList.destroy(cctxt, inst.uuid)


def get_tags(ctx, located):
    if located.cell is None:
        return [t.tag for t in located.instance.tags]
    with keel_context.target_cell(ctx, located.cell) as cctxt:
        return [t.tag for t in objects.TagList.get_by_resource_id(
            cctxt, located.instance.uuid)]


MAX_TAGS = 50
