"""Creating servers in the API service (Nova's compute API ``create`` and
``_provision_instances``): check the request against the flavor, image,
quotas, networks and block devices, write every server's RequestSpec,
BuildRequest and InstanceMapping in one API-database transaction, then
cast ``schedule_and_build_instances`` to the super-conductor.

Nothing here talks to a cell or a compute host: the servers exist for the
API as BuildRequests until the conductor has placed them.
"""
from oslo_log import log as logging
from oslo_utils import uuidutils

from keel.compute_api import server_create_bdm as bdm_api
from keel.compute_api import server_create_checks as checks
from keel.compute_api import server_create_quota as create_quota
from keel.compute_api import server_create_records as records
from keel.conductor import rpcapi as conductor_rpcapi
from keel.conf import CONF
from keel.db import session
from keel import exception
from keel import objects

LOG = logging.getLogger(__name__)

_compute_task_api = None


def compute_task_api():
    global _compute_task_api
    if _compute_task_api is None:
        _compute_task_api = conductor_rpcapi.ComputeTaskAPI()
    return _compute_task_api


def reset():
    """Forget the RPC client (tests that swap transports)."""
    global _compute_task_api
    _compute_task_api = None


class CreateRequest:
    """What the handler read from the body, in the compute API's terms."""

    def __init__(self, **kw):
        self.display_name = kw.get("display_name")
        self.display_description = kw.get("display_description")
        self.hostname = kw.get("hostname")
        self.min_count = kw.get("min_count") or 1
        self.max_count = kw.get("max_count") or self.min_count
        self.key_name = kw.get("key_name")
        self.security_groups = kw.get("security_groups") or ["default"]
        self.availability_zone = kw.get("availability_zone")
        self.forced_host = kw.get("forced_host")
        self.forced_node = kw.get("forced_node")
        self.user_data = kw.get("user_data")
        self.metadata = kw.get("metadata") or {}
        self.injected_files = kw.get("injected_files")
        self.admin_password = kw.get("admin_password")
        self.block_device_mapping = kw.get("block_device_mapping") or []
        self.legacy_bdm = kw.get("legacy_bdm", True)
        self.access_ip_v4 = kw.get("access_ip_v4")
        self.access_ip_v6 = kw.get("access_ip_v6")
        self.requested_networks = kw.get("requested_networks")
        self.config_drive = kw.get("config_drive")
        self.auto_disk_config = kw.get("auto_disk_config")
        self.scheduler_hints = kw.get("scheduler_hints") or {}
        self.tags = kw.get("tags") or []
        self.trusted_certs = kw.get("trusted_certs")
        self.requested_host = kw.get("requested_host")
        self.requested_hypervisor_hostname = kw.get(
            "requested_hypervisor_hostname")


def _boot_image(ctx, image_href, req):
    if image_href:
        return checks.get_image(ctx, image_href)
    if checks.trusted_certs(req.trusted_certs) is not None:
        raise exception.CertificateValidationFailed(
            "Image certificate validation is not supported when booting "
            "from volume")
    return None, bdm_api.boot_image_meta(ctx, req.block_device_mapping,
                                         req.legacy_bdm)


def _filter_properties(req, flavor):
    props = {"scheduler_hints": req.scheduler_hints,
             "instance_type": flavor}
    if req.forced_host:
        props["force_hosts"] = [req.forced_host]
    if req.forced_node:
        props["force_nodes"] = [req.forced_node]
    return props


def _base_options(ctx, flavor, image_href, image, req, reservation_id):
    if flavor.disabled:
        # Nova names the internal id here.
        raise exception.FlavorNotFound(flavor_id=flavor.id)
    checks.check_user_data(req.user_data)
    key_pair = None
    key_data = None
    if req.key_name is not None:
        key_pair = objects.KeyPair.get_by_name(ctx, ctx.user_id,
                                               req.key_name)
        key_data = key_pair.public_key
    props = (image or {}).get("properties") or {}
    return {
        "reservation_id": reservation_id,
        "image_ref": image_href or "",
        "kernel_id": props.get("kernel_id") or "",
        "ramdisk_id": props.get("ramdisk_id") or "",
        "power_state": 0,
        "vm_state": "building",
        "config_drive": checks.config_drive_value(req.config_drive),
        "user_id": ctx.user_id,
        "project_id": ctx.project_id,
        "instance_type_id": flavor.id,
        "memory_mb": flavor.memory_mb,
        "vcpus": flavor.vcpus,
        "root_gb": flavor.root_gb,
        "ephemeral_gb": flavor.ephemeral_gb,
        "display_name": req.display_name,
        "display_description": req.display_description,
        "hostname": req.hostname,
        "user_data": req.user_data,
        "key_name": req.key_name,
        "key_data": key_data,
        "locked": False,
        "metadata": dict(req.metadata),
        "access_ip_v4": req.access_ip_v4,
        "access_ip_v6": req.access_ip_v6,
        "availability_zone": req.availability_zone,
        "root_device_name": None,
        "progress": 0,
        "os_type": props.get("os_type"),
        "architecture": props.get("architecture"),
        "auto_disk_config": checks.auto_disk_config(image,
                                                    req.auto_disk_config),
    }, key_pair


def _names(instance, num_instances, index):
    """Nova's display name and hostname of each server of a request."""
    if not instance.display_name:
        instance.display_name = f"Server {instance.uuid}"
    if not instance.hostname:
        hostname = checks.sanitize_hostname(instance.display_name)
        if not hostname:
            hostname = f"Server-{instance.uuid}"
        elif num_instances > 1:
            hostname = f"{hostname}-{index + 1}"
        instance.hostname = hostname
    if num_instances > 1:
        instance.display_name = f"{instance.display_name}-{index + 1}"


def _new_instance(ctx, uuid, base, key_pair, flavor, image, index,
                  num_instances, req):
    inst = objects.Instance(ctx)
    inst.uuid = uuid
    for key, value in base.items():
        setattr(inst, key, value)
    inst.keypairs = objects.KeyPairList(
        objects=[key_pair] if key_pair else [])
    inst.trusted_certs = checks.trusted_certs(req.trusted_certs)
    inst.launch_index = index
    inst.task_state = "scheduling"
    inst.info_cache = objects.InstanceInfoCache(instance_uuid=uuid,
                                                network_info=[])
    inst.flavor = flavor
    inst.old_flavor = None
    inst.new_flavor = None
    sysmeta = checks.system_metadata_from_image(image, flavor)
    sysmeta.setdefault("image_base_image_ref", inst.image_ref)
    sysmeta["owner_user_name"] = getattr(ctx, "user_name", None)
    sysmeta["owner_project_name"] = getattr(ctx, "project_name", None)
    inst.system_metadata = sysmeta
    # No nova-network: security groups come from the ports later.
    inst.security_groups = objects.SecurityGroupList(objects=[])
    _names(inst, num_instances, index)
    inst.shutdown_terminate = False
    inst.ephemeral_key_uuid = None
    return inst


def _destination(req):
    if not (req.requested_host or req.requested_hypervisor_hostname):
        return None
    dest = objects.Destination()
    if req.requested_host:
        dest.host = req.requested_host
    dest.node = req.requested_hypervisor_hostname
    return dest


def _security_group_list(names):
    """Nova's make_secgroup_list: uuids as uuids, the rest as names."""
    return objects.SecurityGroupList(objects=[
        objects.SecurityGroup(uuid=n) if uuidutils.is_uuid_like(n)
        else objects.SecurityGroup(name=n) for n in names])


class _Plan:
    """The checked request: the records to write and what the cast needs."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def accept(ctx, flavor_id, image_href, req):
    """POST /servers: ``create`` for the flavor with ``flavor_id``
    (FlavorNotFound when the caller cannot see it)."""
    # The flavor, the quota limits, the checks' reads and the records in
    # ONE API-database transaction: one connection checkout (and its
    # ping) and one transaction end instead of two of each -- a round
    # trip costs the most when the machine is busy. The limits are only
    # checked later, in Nova's order; the re-check reads afresh after
    # the commit.
    plan = None
    try:
        with session.api_writer(ctx):
            flavor = objects.Flavor.get_by_flavor_id(ctx, flavor_id)
            limits = create_quota.read_limits(ctx)
            plan = _plan(ctx, flavor, image_href, req, limits)
            records.write(ctx, plan.built, plan.group)
    except Exception:
        if plan is not None:
            bdm_api.release_volumes(ctx, plan.attachments)
        raise
    return _hand_over(ctx, plan, req)


def create(ctx, flavor, image_href, req, limits=None):
    """Accept ``req`` (a CreateRequest); returns ``(instances,
    reservation_id)``. Raises Nova's exceptions for every refusal.
    ``limits``: the quota limits when the caller read them already."""
    return _commit(ctx, _plan(ctx, flavor, image_href, req, limits), req)


def _plan(ctx, flavor, image_href, req, limits=None):
    if req.requested_networks and req.max_count > 1:
        checks.check_multiple_with_networks(req.requested_networks)
    if req.hostname and req.max_count > 1:
        raise exception.AmbiguousHostnameForMultipleInstances()
    if req.availability_zone and req.forced_host is None:
        checks.check_zone_available(ctx, req.availability_zone)
    filter_properties = _filter_properties(req, flavor)
    reservation_id = checks.generate_reservation_id()

    image_id, image = _boot_image(ctx, image_href, req)
    base, key_pair = _base_options(ctx, flavor, image_id, image, req,
                                   reservation_id)
    security_groups = checks.check_security_groups(ctx, req.security_groups)
    max_net = checks.check_requested_networks(ctx, req.requested_networks,
                                              req.max_count)
    if max_net < req.min_count:
        raise exception.PortLimitExceeded()
    max_count = min(req.max_count, max_net)

    bdms = bdm_api.transform(list(req.block_device_mapping), req.legacy_bdm,
                             image_id, flavor, max_count, image)
    root = bdm_api.root_bdm(bdms)
    checks.check_metadata_quota(ctx, req.metadata)
    checks.check_injected_files_quota(ctx, req.injected_files)
    root_obj = None
    if root is not None:
        root_obj = objects.BlockDeviceMapping(
            destination_type=root.get("destination_type"),
            volume_size=root.get("volume_size"))
    checks.check_flavor_image(ctx, image_id, image, flavor, root_obj)
    group = checks.requested_group(ctx, req.scheduler_hints)
    tags = objects.TagList(objects=[objects.Tag(tag=t) for t in req.tags])

    if req.requested_host or req.requested_hypervisor_hostname:
        checks.check_host_or_node(ctx, req.requested_host,
                                  req.requested_hypervisor_hostname)
    num, limits = create_quota.check_num_instances(
        ctx, flavor, req.min_count, max_count, limits=limits)
    if group is not None:
        create_quota.check_group_members(ctx, group, num)
    volumes = bdm_api.validate(ctx, bdms, flavor, image_id, {})
    zone = bdm_api.volume_zone(base["availability_zone"], volumes)
    if zone is not None:
        base["availability_zone"] = zone
    is_bfv = bool(root and root.get("destination_type") == "volume")
    sg_list = _security_group_list(security_groups)
    destination = _destination(req)

    built = []
    for index in range(num):
        uuid = uuidutils.generate_uuid()
        spec = objects.RequestSpec.from_components(
            ctx, uuid, image, flavor, None, None, filter_properties, group,
            base["availability_zone"], security_groups=sg_list)
        spec.is_bfv = is_bfv
        spec.num_instances = num
        if destination is not None:
            spec.requested_destination = destination
        inst = _new_instance(ctx, uuid, base, key_pair, flavor, image,
                             index, num, req)
        inst_tags = objects.TagList(objects=[
            objects.Tag(resource_id=uuid, tag=t.tag) for t in tags])
        build_request = objects.BuildRequest(
            ctx, instance=inst, instance_uuid=uuid,
            project_id=inst.project_id,
            block_device_mappings=bdm_api.for_instance(ctx, bdms, flavor,
                                                       uuid),
            tags=inst_tags)
        mapping = objects.InstanceMapping(
            ctx, instance_uuid=uuid, project_id=ctx.project_id,
            user_id=ctx.user_id, cell_mapping=None, queued_for_delete=False)
        built.append((spec, build_request, mapping))
    request_bdms = bdm_api.for_instance(ctx, bdms, flavor)
    attachments = []
    if any(b.get("source_type") == "volume" and b.get("volume_id")
           for b in bdms):
        # Existing volumes are reserved now, as Nova's API does (only
        # one server can have them: multi-create was refused above).
        attachments = bdm_api.reserve_volumes(
            ctx, built[0][1].instance_uuid,
            built[0][1].block_device_mappings, request_bdms)
    return _Plan(built=built, image=image, tags=tags, group=group,
                 flavor=flavor, num=num, limits=limits,
                 reservation_id=reservation_id, bdms=request_bdms,
                 attachments=attachments)


def _commit(ctx, plan, req):
    """Write, re-check, cast."""
    try:
        records.write(ctx, plan.built, plan.group)
    except Exception:
        bdm_api.release_volumes(ctx, plan.attachments)
        raise
    return _hand_over(ctx, plan, req)


def _hand_over(ctx, plan, req):
    """After the records are written: re-check, cast."""
    built, group = plan.built, plan.group
    try:
        if CONF.quota.recheck_quota:
            create_quota.recheck(ctx, plan.limits, plan.flavor, plan.num)
            if group is not None:
                create_quota.check_group_members(ctx, group, 0,
                                                 recheck_only=True)
    except Exception:
        records.remove(ctx, built, group)
        bdm_api.release_volumes(ctx, plan.attachments)
        raise
    requested_networks = req.requested_networks
    if requested_networks is not None:
        for spec, _b, _m in built:
            spec.requested_networks = requested_networks
    try:
        compute_task_api().schedule_and_build_instances(
            ctx, build_requests=[b for _s, b, _m in built],
            request_specs=[s for s, _b, _m in built], image=plan.image,
            admin_password=req.admin_password,
            injected_files=req.injected_files,
            requested_networks=requested_networks,
            block_device_mapping=plan.bdms, tags=plan.tags)
    except Exception:
        # Not handed over: undo, rather than leave servers in BUILD that
        # nothing will ever build. (Had the cast got through after all,
        # the conductor finds no BuildRequest: a server deleted meanwhile.)
        LOG.exception("Could not cast schedule_and_build_instances for %s",
                      [b.instance_uuid for _s, b, _m in built])
        records.remove(ctx, built, group)
        bdm_api.release_volumes(ctx, plan.attachments)
        raise
    return [b.instance for _s, b, _m in built], plan.reservation_id
