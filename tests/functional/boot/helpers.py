"""A boot request as POST /servers leaves it: BuildRequest, RequestSpec and
InstanceMapping in the API database, then the cast to the super-conductor.
"""
import uuid

from keel import objects

PROJECT = "5c1e8f0a2b3d4e6f8a9b0c1d2e3f4a5b"
USER = "9a8b7c6d5e4f4a3b2c1d0e9f8a7b6c5d"
IMAGE_ID = "155d900f-4e14-4e4c-a73d-069cbf4541e6"


def image(image_id=IMAGE_ID, **props):
    return {"id": image_id, "name": "cirros", "status": "active",
            "disk_format": "qcow2", "container_format": "bare",
            "min_disk": 0, "min_ram": 0, "size": 16384,
            "properties": dict({"hw_architecture": "x86_64"}, **props)}


def flavor(memory_mb=512, vcpus=1, root_gb=1, name="boot.small"):
    return objects.Flavor(id=7, flavorid=name, name=name, vcpus=vcpus,
                          memory_mb=memory_mb, root_gb=root_gb,
                          ephemeral_gb=0, swap=0, extra_specs={},
                          rxtx_factor=1.0, vcpu_weight=None,
                          is_public=True, disabled=False, description=None)


def root_bdm(image_id=IMAGE_ID):
    return objects.BlockDeviceMapping(
        source_type="image", destination_type="local", boot_index=0,
        image_id=image_id, delete_on_termination=True, device_name=None,
        guest_format=None, volume_size=None, device_type="disk",
        disk_bus=None, tag=None, no_device=False, volume_id=None,
        snapshot_id=None, volume_type=None)


class Boot:
    """One server of a request: its uuid and the objects the API wrote."""

    def __init__(self, ctxt, name, flv, img, tags):
        self.uuid = str(uuid.uuid4())
        inst = objects.Instance(
            ctxt, uuid=self.uuid, project_id=ctxt.project_id,
            user_id=ctxt.user_id, display_name=name, hostname=name,
            display_description=None, vm_state="building",
            task_state="scheduling", power_state=0, flavor=flv,
            old_flavor=None, new_flavor=None, instance_type_id=flv.id,
            memory_mb=flv.memory_mb, vcpus=flv.vcpus, root_gb=flv.root_gb,
            ephemeral_gb=flv.ephemeral_gb, image_ref=img.get("id"),
            metadata={"boot": "test"}, system_metadata={}, launch_index=0,
            reservation_id="r-" + self.uuid[:8], availability_zone=None,
            key_name=None, key_data=None, user_data=None, locked=False,
            locked_by=None, config_drive="", root_device_name=None,
            numa_topology=None, pci_requests=None, trusted_certs=None,
            keypairs=objects.KeyPairList(objects=[]),
            security_groups=objects.SecurityGroupList(objects=[]),
            access_ip_v4=None, access_ip_v6=None, progress=0,
            architecture=None, os_type=None, vm_mode=None,
            kernel_id="", ramdisk_id="", host=None, node=None,
            launched_on=None, auto_disk_config=False,
            shutdown_terminate=False, disable_terminate=False,
            cell_name=None, hidden=False)
        self.bdms = objects.BlockDeviceMappingList(
            objects=[root_bdm(img.get("id"))])
        self.tags = objects.TagList(
            objects=[objects.Tag(resource_id=self.uuid, tag=t)
                     for t in tags])
        self.build_request = objects.BuildRequest(
            ctxt, instance_uuid=self.uuid, project_id=ctxt.project_id,
            instance=inst, block_device_mappings=self.bdms, tags=self.tags)
        self.spec = objects.RequestSpec.from_components(
            ctxt, self.uuid, img, flv, None, None, {}, None, None,
            project_id=ctxt.project_id, user_id=ctxt.user_id)
        self.mapping = objects.InstanceMapping(
            ctxt, instance_uuid=self.uuid, project_id=ctxt.project_id,
            user_id=ctxt.user_id, cell_mapping=None,
            queued_for_delete=False)

    def write(self):
        self.build_request.create()
        self.spec.create()
        self.mapping.create()
        return self


def boot_request(ctxt, count=1, memory_mb=512, name="vm", img=None,
                 tags=("blue",)):
    """``count`` servers of one request, written to the API database; the
    arguments of schedule_and_build_instances for them."""
    img = img or image()
    flv = flavor(memory_mb=memory_mb)
    boots = [Boot(ctxt, "%s-%d" % (name, i), flv, img, tags).write()
             for i in range(count)]
    for boot in boots:
        boot.spec.num_instances = count
    kwargs = dict(
        build_requests=[b.build_request for b in boots],
        request_specs=[b.spec for b in boots], image=img,
        admin_password="secret", injected_files=[],
        requested_networks=objects.NetworkRequestList(
            objects=[objects.NetworkRequest(network_id="none")]),
        block_device_mapping=boots[0].bdms,
        tags=boots[0].tags)
    return boots, kwargs
