"""What the build workflows share.

- ``put_in_error``: an instance that cannot be built goes to ERROR with a
  fault and the compute_task error notifications (Nova's
  set_vm_state_and_notify), as a compare-and-swap that loses to a delete.
- ``new_instance`` / ``create_in_cell``: the cell record of a BuildRequest
  (instance, instance_extra, system metadata, action, BDMs, tags) written
  in one transaction, so a crash never leaves half an instance.
- the legacy filter properties and the retry bookkeeping that travel to the
  compute and come back on a reschedule.
"""
import copy
import sys
import traceback

from oslo_log import log as logging
from oslo_serialization import jsonutils

from keel.conductor.tasks import notify
from keel.conf import CONF
from keel.db import session as db_session
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

BUILDING = "building"
ERROR = "error"
SCHEDULING = "scheduling"
CREATE = "create"
# Every task_state a build passes through: an error may overwrite these,
# never 'deleting' (the user's delete wins).
BUILD_TASK_STATES = [None, SCHEDULING, "networking", "block_device_mapping",
                     "spawning"]
# Image properties never copied into system metadata (Nova's skip list).
_SM_SKIP_KEYS = ("img_signature_hash_method", "img_signature",
                 "img_signature_key_type", "img_signature_certificate_uuid")
_SM_INHERITABLE = ("min_ram", "min_disk", "disk_format", "container_format")
# Per-row fields a BDM copied into a new instance must not carry over.
_BDM_SKIP = ("id", "uuid", "instance", "instance_uuid", "created_at",
             "updated_at", "deleted_at", "deleted")


# -- faults and error states -------------------------------------------------

def add_fault(context, instance_uuid, exc, exc_info=None, host=None):
    """An instance_faults row for ``exc`` (Nova's add_instance_fault_from_exc:
    code from the exception, the traceback kept only for code 500)."""
    code = 500
    if hasattr(exc, "kwargs"):
        code = exc.kwargs.get("code", 500)
    try:
        message = exc.format_message()
    except AttributeError:
        message = str(exc)
    message = message or exc.__class__.__name__
    details = ""
    if code == 500 and exc_info and exc_info[0] is not None:
        details = "".join(traceback.format_exception(*exc_info))
    fault = objects.InstanceFault(context, instance_uuid=instance_uuid,
                                  code=code, message=message[:255],
                                  details=details, host=host or CONF.host)
    fault.create()
    return fault


def put_in_error(context, instance_uuid, exc, request_spec, method=
                 "build_instances", exc_info=None, host=None):
    """ERROR / no task for the instance, with a fault and notifications.

    Only a build becomes ERROR (compare-and-swap on vm_state building and
    a build task state). False, and nothing written, when the instance is
    gone, being deleted or no longer building: someone else owns it now.
    """
    exc_info = exc_info or sys.exc_info()
    LOG.warning("Failed to compute_task_%s: %s", method, exc,
                instance_uuid=instance_uuid)
    try:
        instance = objects.Instance.get_by_uuid(context, instance_uuid)
        instance.vm_state = ERROR
        instance.task_state = None
        # The state and its explanation are written together.
        with db_session.cell_writer(context):
            instance.save(expected_vm_state=BUILDING,
                          expected_task_state=BUILD_TASK_STATES)
            add_fault(context, instance_uuid, exc, exc_info, host=host)
    except (exception.InstanceNotFound,
            exception.InstanceUpdateConflict) as gone:
        LOG.info("Not setting instance %s to ERROR: %s", instance_uuid, gone)
        return False
    # instance.update for this change comes from Instance.save itself.
    notify.build_error(context, instance_uuid, method, request_spec, ERROR,
                       exc, exc_info, host=host)
    return True


# -- the cell record of a build request ---------------------------------------

def system_metadata_from_image(image, flavor=None):
    """image_* system metadata keys for an image dict (Nova's
    get_system_metadata_from_image)."""
    image = image or {}
    sysmeta = {}
    for key, value in (image.get("properties") or {}).items():
        if key in _SM_SKIP_KEYS:
            continue
        sysmeta["image_" + key] = str(value)[:255]
    for key in _SM_INHERITABLE:
        value = image.get(key)
        if key == "min_disk" and flavor is not None:
            if image.get("disk_format") == "vhd":
                value = flavor.root_gb
            else:
                value = max(value or 0, flavor.root_gb)
        if value is None:
            continue
        sysmeta["image_" + key] = str(value)
    return sysmeta


def _default(instance, name, value):
    if not instance.obj_attr_is_set(name) or (
            getattr(instance, name) is None and value is not None):
        setattr(instance, name, value)


def new_instance(context, build_request, request_spec, image):
    """A fresh Instance from what the API accepted, with what the API may
    have left to us filled from the request spec and the image."""
    instance = build_request.get_new_instance(context)
    spec = request_spec
    flavor = instance.flavor if instance.obj_attr_is_set("flavor") \
        else spec.flavor
    _default(instance, "flavor", flavor)
    for name, value in (("instance_type_id", flavor.id),
                        ("memory_mb", flavor.memory_mb),
                        ("vcpus", flavor.vcpus),
                        ("root_gb", flavor.root_gb),
                        ("ephemeral_gb", flavor.ephemeral_gb),
                        ("vm_state", BUILDING),
                        ("power_state", 0),
                        ("project_id", spec.project_id),
                        ("user_id", spec.user_id)):
        if not instance.obj_attr_is_set(name):
            setattr(instance, name, value)
    if not instance.obj_attr_is_set("task_state"):
        instance.task_state = SCHEDULING
    for name in ("numa_topology", "pci_requests"):
        if not instance.obj_attr_is_set(name) and spec.obj_attr_is_set(name):
            setattr(instance, name, getattr(spec, name))
    if not instance.obj_attr_is_set("metadata"):
        instance.metadata = {}
    sysmeta = dict(instance.system_metadata) if instance.obj_attr_is_set(
        "system_metadata") else {}
    for key, value in system_metadata_from_image(image, flavor).items():
        sysmeta.setdefault(key, value)
    instance.system_metadata = sysmeta
    if not instance.obj_attr_is_set("image_ref") and image:
        instance.image_ref = image.get("id")
    return instance


def _volume_size(flavor, bdm):
    size = bdm.volume_size if bdm.obj_attr_is_set("volume_size") else None
    if size is None and bdm.obj_attr_is_set("source_type") and \
            bdm.source_type == "blank" and bdm.destination_type == "local":
        size = flavor.swap if bdm.guest_format == "swap" \
            else flavor.ephemeral_gb
    return size


def create_in_cell(cctxt, instance, block_device_mapping, tags,
                   action=True):
    """Write the instance and everything hanging off it in the cell of
    ``cctxt`` in one transaction; returns (bdms, tags) as created."""
    bdms = objects.BlockDeviceMappingList(objects=[])
    if tags is None and instance.obj_attr_is_set("tags"):
        tags = instance.tags
    names = list(dict.fromkeys(t.tag for t in (tags or [])))
    # Written by Instance.create itself: one insert, no delete/re-read.
    instance.tags = objects.TagList(objects=[
        objects.Tag(resource_id=instance.uuid, tag=name) for name in names])
    with db_session.cell_writer(cctxt):
        instance._context = cctxt
        instance.create()
        if action:
            objects.InstanceAction.action_start(cctxt, instance.uuid, CREATE,
                                                want_result=False)
        for src in (block_device_mapping or []):
            # A new object: every field is a change to write, whatever
            # the API's copy had already saved or reset.
            bdm = objects.BlockDeviceMapping(cctxt, **{
                name: copy.deepcopy(getattr(src, name))
                for name in src.fields
                if src.obj_attr_is_set(name) and name not in _BDM_SKIP})
            bdm.instance_uuid = instance.uuid
            bdm.volume_size = _volume_size(instance.flavor, bdm)
            bdm.create()
            bdms.objects.append(bdm)
    return bdms, instance.tags


def setup_instance_group(context, spec):
    """Give the scheduler the group's current hosts and members (Nova's
    setup_instance_group): the (anti-)affinity filters decide on them."""
    group = spec.instance_group if spec.obj_attr_is_set(
        "instance_group") else None
    if group is None or not group.obj_attr_is_set("uuid"):
        return
    fresh = objects.InstanceGroup.get_by_uuid(context, group.uuid)
    group.hosts = list(fresh.get_hosts())
    group.members = list(fresh.members or [])
    group.policy = fresh.policy
    group.obj_reset_changes(["hosts", "members", "policy"])


# -- legacy filter properties and retries -------------------------------------

def legacy_filter_properties(spec):
    """Nova's RequestSpec.to_legacy_filter_properties_dict (sets become
    lists so the dict travels as JSON)."""
    props = {}

    def has(name):
        return spec.obj_attr_is_set(name) and getattr(spec, name)
    for name in ("ignore_hosts", "force_hosts", "force_nodes"):
        if has(name):
            props[name] = list(getattr(spec, name))
    if has("retry"):
        props["retry"] = {
            "num_attempts": spec.retry.num_attempts,
            "hosts": [[n.host, n.hypervisor_hostname]
                      for n in spec.retry.hosts]}
    if has("limits"):
        props["limits"] = spec.limits.to_dict()
    if has("instance_group"):
        group = spec.instance_group
        props["group_updated"] = True
        props["group_policies"] = [group.policy] if group.obj_attr_is_set(
            "policy") and group.policy else []
        props["group_hosts"] = list(group.hosts or []) \
            if group.obj_attr_is_set("hosts") else []
        props["group_members"] = list(group.members or []) \
            if group.obj_attr_is_set("members") else []
    if has("scheduler_hints"):
        props["scheduler_hints"] = {
            name: spec.get_scheduler_hint(name)
            for name in spec.scheduler_hints}
    return props


def populate_retry(filter_properties, instance_uuid):
    """Count one more attempt in filter_properties['retry'] (Nova's
    populate_retry). No retry bookkeeping when reschedules are off
    (max_attempts 1, or a single forced host/node)."""
    max_attempts = CONF.scheduler.max_attempts
    if (max_attempts == 1
            or len(filter_properties.get("force_hosts") or []) == 1
            or len(filter_properties.get("force_nodes") or []) == 1):
        return
    retry = filter_properties.setdefault(
        "retry", {"num_attempts": 0, "hosts": []})
    retry["num_attempts"] += 1
    exc_reason = retry.pop("exc_reason", None)
    exc = retry.get("exc")
    if exc and retry.get("hosts"):
        last_host, last_node = retry["hosts"][-1]
        LOG.error("Error from last host: %s (node %s): %s", last_host,
                  last_node, "".join(exc) if isinstance(exc, list) else exc,
                  instance_uuid=instance_uuid)
    if retry["num_attempts"] > max_attempts:
        raise exception.MaxRetriesExceeded(reason=(
            "Exceeded max scheduling attempts %d for instance %s. "
            "Last exception: %s" % (max_attempts, instance_uuid,
                                    exc_reason)))


def populate_filter_properties(filter_properties, selection):
    """Record the chosen host in the retry list and pass its limits."""
    limits = {}
    if selection.obj_attr_is_set("limits") and selection.limits is not None:
        limits = selection.limits.to_dict()
    retry = filter_properties.get("retry")
    if retry:
        retry["hosts"].append([selection.service_host, selection.nodename])
    if not filter_properties.get("force_hosts"):
        filter_properties["limits"] = limits


def fill_provider_mapping(spec, selection):
    """Tell the spec's resource groups (port QoS, accelerators) which
    providers the claimed allocation request took them from (Nova's
    fill_provider_mapping; Placement >= 1.34 returns the mappings)."""
    groups = spec.requested_resources if spec.obj_attr_is_set(
        "requested_resources") else None
    if not groups or not selection.allocation_request:
        return
    mappings = jsonutils.loads(selection.allocation_request).get(
        "mappings") or {}
    for group in groups:
        if group.requester_id in mappings:
            group.provider_uuids = list(mappings[group.requester_id])
