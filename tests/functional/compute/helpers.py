"""Instances as the conductor leaves them in cell1 just before it casts
build_and_run_instance (action 'create' logged, allocations claimed), so
the compute can be driven directly through keel.compute.rpcapi."""
import uuid

from keel.compute import rpcapi as compute_rpcapi
from keel import context as keel_context
from keel import objects
from tests.functional.fixtures_services import wait_for

PROJECT = "0b5e3f1c2d4a4b6c8e9f0a1b2c3d4e5f"
USER = "f1e2d3c4b5a64978a1b2c3d4e5f60718"
IMAGE = {"id": "3f1a8c55-8f7e-4a8e-9d52-6c0f1b2a3c4d", "name": "cirros",
         "status": "active", "disk_format": "qcow2",
         "container_format": "bare", "min_disk": 0, "min_ram": 0,
         "size": 16384, "properties": {}}


def flavor():
    return objects.Flavor(id=11, flavorid="c1", name="c1", vcpus=1,
                          memory_mb=128, root_gb=1, ephemeral_gb=0, swap=0,
                          extra_specs={}, rxtx_factor=1.0, vcpu_weight=None,
                          is_public=True, disabled=False, description=None)


def user_ctxt():
    """A member's request context (its request id names the action)."""
    return keel_context.RequestContext(user_id=USER, project_id=PROJECT,
                                       is_admin=True)


def compute(cloud, host):
    return next(s.manager for s in cloud.services
                if s.binary == "nova-compute" and s.host == host)


def node_uuid(cloud, host):
    return cloud.nodes(host)[0].uuid


def create_instance(cloud, ctxt, vm_state="building",
                    task_state="scheduling", host=None, action="create"):
    flv = flavor()
    inst = objects.Instance(
        ctxt, uuid=str(uuid.uuid4()), project_id=PROJECT, user_id=USER,
        display_name="c", hostname="c", vm_state=vm_state,
        task_state=task_state, power_state=0, flavor=flv, old_flavor=None,
        new_flavor=None, instance_type_id=flv.id, memory_mb=flv.memory_mb,
        vcpus=flv.vcpus, root_gb=flv.root_gb, ephemeral_gb=0,
        image_ref=IMAGE["id"], metadata={}, system_metadata={},
        launch_index=0, host=host, node=host, launched_on=None,
        root_device_name=None, locked=False, hidden=False,
        availability_zone=None, config_drive="")
    inst.create()
    if action:
        objects.InstanceAction.action_start(ctxt, inst.uuid, action,
                                            want_result=False)
    return inst


def allocate(cloud, ctxt, inst, host):
    """Claim the flavor on ``host``'s node as the scheduler would."""
    allocs = {node_uuid(cloud, host): {"resources": {
        "VCPU": 1, "MEMORY_MB": 128, "DISK_GB": 1}}}
    resp = cloud.placement.put_allocations(ctxt, inst.uuid, allocs,
                                           PROJECT, USER, None)
    assert resp.status_code == 204, resp.text
    return allocs


def allocations(cloud, ctxt, inst):
    return cloud.placement.get_allocations(ctxt, inst.uuid)["allocations"]


def build(ctxt, inst, host, filter_properties=None, host_list=None,
          bdms=None):
    spec = objects.RequestSpec.from_components(
        ctxt, inst.uuid, IMAGE, inst.flavor, None, None, {}, None, None,
        project_id=PROJECT, user_id=USER)
    compute_rpcapi.ComputeAPI().build_and_run_instance(
        ctxt, inst, host, IMAGE, spec,
        filter_properties or {}, admin_password=None, injected_files=[],
        requested_networks=objects.NetworkRequestList(
            objects=[objects.NetworkRequest(network_id="none")]),
        security_groups=None,
        block_device_mapping=bdms or objects.BlockDeviceMappingList(
            objects=[]),
        node=host, limits=None, host_list=host_list or [], accel_uuids=[])


def reload(ctxt, inst, **kw):
    read = keel_context.get_admin_context(read_deleted="yes")
    read.request_id = ctxt.request_id
    return objects.Instance.get_by_uuid(read, inst.uuid, **kw)


def wait_state(ctxt, inst, vm_state, task_state=None, timeout=20):
    def check():
        got = reload(ctxt, inst)
        return got if (got.vm_state, got.task_state) == (
            vm_state, task_state) else None
    got = wait_for(check, timeout=timeout, interval=0.05)
    assert got, "instance %s is %s/%s, wanted %s/%s" % (
        inst.uuid, reload(ctxt, inst).vm_state,
        reload(ctxt, inst).task_state, vm_state, task_state)
    return got


def events(ctxt, inst):
    action = objects.InstanceAction.get_by_request_id(ctxt, inst.uuid,
                                                      ctxt.request_id)
    return {e.event: e for e in objects.InstanceActionEventList
            .get_by_action(ctxt, action.id)}, action
