"""Manila shares attached to a server (Nova's compute/api allow_share /
deny_share and the checks of its server_shares controller, 2.97).

Attaching needs a stopped server on a host that can give it a virtiofs
device (its provider's COMPUTE_STORAGE_VIRTIO_FS trait, and file-backed
memory -- COMPUTE_MEM_BACKING_FILE -- or huge pages), and an available
Manila share with an export location and a protocol Nova mounts. The
mapping is written 'attaching' (one per share and per tag) and the compute
is asked to grant the host's access rule (allow_share, which leaves it
'inactive'). Detaching marks it 'detaching' and casts deny_share, which
removes the rule and the mapping.
"""
import os_traits
from oslo_utils import uuidutils

from keel.clients import manila
from keel.compute_api import server_power as power
from keel.conf import CONF
from keel import exception
from keel import objects
from keel.objects import fields

STOPPED, ERROR = "stopped", "error"
CREATE, DELETE = "create share", "delete share"


def manila_api():
    return manila.API()


def check_state(instance, method):
    """vm_state stopped (or error, to detach) -> else InstanceInvalidState
    (409 "Cannot 'create share' instance ... while it is in vm_state ...")."""
    allowed = [STOPPED] if method == CREATE else [STOPPED, ERROR]
    power.check_state(instance, method, vm_state=allowed,
                      must_have_launched=False)


def _node_traits(instance):
    from keel.clients import placement as pl
    node = objects.ComputeNode.get_by_host_and_nodename(
        instance._context, instance.host, instance.node)
    traits, _generation = pl.PlacementClient(conf=CONF).get_traits(
        instance._context, node.uuid)
    return traits


def _huge_pages(instance):
    flavor = instance.flavor if instance.obj_attr_is_set("flavor") else None
    specs = (flavor.extra_specs or {}) if flavor is not None else {}
    return bool(specs.get("hw:mem_page_size"))


def check_shares_supported(instance):
    """The host's traits allow virtiofs for this instance, else
    ForbiddenSharesNotConfiguredCorrectly (409)."""
    if not instance.host or not instance.node:
        raise exception.ForbiddenSharesNotConfiguredCorrectly()
    try:
        traits = _node_traits(instance)
    except exception.NotFound:
        raise exception.ForbiddenSharesNotConfiguredCorrectly()
    if os_traits.COMPUTE_STORAGE_VIRTIO_FS not in traits or not (
            os_traits.COMPUTE_MEM_BACKING_FILE in traits or
            _huge_pages(instance)):
        raise exception.ForbiddenSharesNotConfiguredCorrectly()


def _check_manila_share(share):
    if share.status != "available":
        raise exception.ShareStatusIncorect(share_id=share.id,
                                            status=share.status)
    if share.export_location is None:
        raise exception.ShareMissingExportLocation(share_id=share.id)
    if share.share_proto not in fields.ShareMappingProto.ALL:
        raise exception.ShareProtocolNotSupported(
            share_proto=share.share_proto)


def list_shares(instance):
    return objects.ShareMappingList.get_by_instance_uuid(
        instance._context, instance.uuid)


def get_share(instance, share_id):
    """The mapping of ``share_id`` on the instance; ShareNotFound (404)."""
    return objects.ShareMapping.get_by_instance_uuid_and_share_id(
        instance._context, instance.uuid, share_id)


def _create_mapping(mapping):
    """One mapping per share and per tag on an instance (409 otherwise)."""
    try:
        objects.ShareMapping.get_by_instance_uuid_and_share_id(
            mapping._context, mapping.instance_uuid, mapping.share_id)
    except exception.ShareNotFound:
        mapping.create()
        return
    raise exception.ShareMappingAlreadyExists(share_id=mapping.share_id,
                                              tag=mapping.tag)


def allow_share(ctx, instance, share_id, tag=None):
    """Attach Manila share ``share_id``: the new mapping ('attaching')."""
    check_state(instance, CREATE)
    check_shares_supported(instance)
    share = manila_api().get(ctx, share_id)
    _check_manila_share(share)
    mapping = objects.ShareMapping(instance._context)
    mapping.uuid = uuidutils.generate_uuid()
    mapping.instance_uuid = instance.uuid
    mapping.share_id = share.id
    mapping.status = fields.ShareMappingStatus.ATTACHING
    mapping.tag = tag or share.id
    mapping.export_location = share.export_location
    mapping.share_proto = share.share_proto
    _create_mapping(mapping)
    power.record_action(instance, "attach_share")
    power.compute_rpc().allow_share(instance._context, instance, mapping)
    return mapping


def deny_share(ctx, instance, share_id):
    """Detach Manila share ``share_id``: 'detaching', then the compute."""
    check_state(instance, DELETE)
    mapping = get_share(instance, share_id)
    mapping.status = fields.ShareMappingStatus.DETACHING
    mapping.save()
    power.record_action(instance, "detach_share")
    power.compute_rpc().deny_share(instance._context, instance, mapping)

