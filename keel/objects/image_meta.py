"""Objects: ImageMeta (a Glance image as the compute service sees it) and
ImageMetaProps (its typed properties)."""
from keel.objects import base
from keel.objects import fields

# Glance may return None for these; the object fields are not nullable
# (as in Nova), so None becomes the empty value.
NULLABLE_STRING_FIELDS = ('name', 'checksum', 'owner', 'container_format',
                          'disk_format')
NULLABLE_INTEGER_FIELDS = ('size', 'virtual_size')
# Older image property names and the field each one maps to.
LEGACY_PROPERTY_NAMES = {
    'architecture': 'hw_architecture',
    'hypervisor_type': 'img_hv_type',
    'hypervisor_version_requires': 'img_hv_requested_version',
    'vm_mode': 'hw_vm_mode',
    'auto_disk_config': 'hw_auto_disk_config',
}
# Base image attributes stored in an instance's system_metadata.
_SYSMETA_BASE = ('min_ram', 'min_disk', 'disk_format', 'container_format',
                 'checksum', 'size')


@base.KeelObjectRegistry.register
class ImageMeta(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.8'

    fields = {
        'checksum': fields.StringField(),
        'container_format': fields.StringField(),
        'direct_url': fields.StringField(),
        'disk_format': fields.StringField(),
        'id': fields.UUIDField(),
        'min_disk': fields.IntegerField(),
        'min_ram': fields.IntegerField(),
        'name': fields.StringField(),
        'owner': fields.StringField(),
        'properties': fields.ObjectField('ImageMetaProps'),
        'protected': fields.FlexibleBooleanField(),
        'size': fields.IntegerField(),
        'status': fields.StringField(),
        'tags': fields.ListOfStringsField(),
        'virtual_size': fields.IntegerField(),
        'visibility': fields.StringField(),
    }

    @classmethod
    def from_dict(cls, image_meta):
        """From a Glance image dict; unknown keys are ignored."""
        image_meta = dict(image_meta or {})
        props = ImageMetaProps.from_dict(image_meta.pop("properties", None)
                                         or {})
        values = {k: v for k, v in image_meta.items() if k in cls.fields}
        for name in NULLABLE_STRING_FIELDS:
            if name in values and values[name] is None:
                values[name] = ''
        for name in NULLABLE_INTEGER_FIELDS:
            if name in values and values[name] is None:
                values[name] = 0
        return cls(properties=props, **values)

    @classmethod
    def from_instance(cls, instance):
        """From the image_* keys Nova copies into system_metadata."""
        sysmeta = instance.system_metadata if instance.obj_attr_is_set(
            "system_metadata") or instance._context else {}
        image = {"properties": {}}
        for key, value in (sysmeta or {}).items():
            if not key.startswith("image_"):
                continue
            name = key[len("image_"):]
            if name in _SYSMETA_BASE:
                image[name] = value
            else:
                image["properties"][name] = value
        if instance.obj_attr_is_set("image_ref") and instance.image_ref:
            image.setdefault("id", instance.image_ref)
        return cls.from_dict(image)


@base.KeelObjectRegistry.register
class ImageMetaProps(base.KeelObject):
    VERSION = '1.44'

    fields = {
        'hw_architecture': fields.ArchitectureField(),
        'hw_auto_disk_config': fields.StringField(),
        'hw_boot_menu': fields.FlexibleBooleanField(),
        'hw_cdrom_bus': fields.DiskBusField(),
        'hw_cpu_cores': fields.IntegerField(),
        'hw_cpu_max_cores': fields.IntegerField(),
        'hw_cpu_max_sockets': fields.IntegerField(),
        'hw_cpu_max_threads': fields.IntegerField(),
        'hw_cpu_policy': fields.CPUAllocationPolicyField(),
        'hw_cpu_realtime_mask': fields.StringField(),
        'hw_cpu_sockets': fields.IntegerField(),
        'hw_cpu_thread_policy': fields.CPUThreadAllocationPolicyField(),
        'hw_cpu_threads': fields.IntegerField(),
        'hw_device_id': fields.IntegerField(),
        'hw_disk_bus': fields.DiskBusField(),
        'hw_disk_type': fields.StringField(),
        'hw_emulation_architecture': fields.ArchitectureField(),
        'hw_ephemeral_encryption': fields.FlexibleBooleanField(),
        'hw_ephemeral_encryption_format':
            fields.BlockDeviceEncryptionFormatTypeField(),
        'hw_ephemeral_encryption_secret_uuid': fields.UUIDField(),
        'hw_firmware_stateless': fields.FlexibleBooleanField(),
        'hw_firmware_type': fields.FirmwareTypeField(),
        'hw_floppy_bus': fields.DiskBusField(),
        'hw_input_bus': fields.InputBusField(),
        'hw_ipxe_boot': fields.FlexibleBooleanField(),
        'hw_locked_memory': fields.FlexibleBooleanField(),
        'hw_machine_type': fields.StringField(),
        'hw_maxphysaddr_bits': fields.IntegerField(),
        'hw_maxphysaddr_mode': fields.MaxPhysAddrModeField(),
        'hw_mem_encryption': fields.FlexibleBooleanField(),
        'hw_mem_encryption_model': fields.MemEncryptionModelField(),
        'hw_mem_page_size': fields.StringField(),
        'hw_numa_cpus': fields.ListOfSetsOfIntegersField(),
        'hw_numa_mem': fields.ListOfIntegersField(),
        'hw_numa_nodes': fields.IntegerField(),
        'hw_pci_numa_affinity_policy': fields.PCINUMAAffinityPolicyField(),
        'hw_pmu': fields.FlexibleBooleanField(),
        'hw_pointer_model': fields.PointerModelField(),
        'hw_qemu_guest_agent': fields.FlexibleBooleanField(),
        'hw_redirected_usb_ports': fields.IntegerField(),
        'hw_rescue_bus': fields.DiskBusField(),
        'hw_rescue_device': fields.BlockDeviceTypeField(),
        'hw_rng_model': fields.RNGModelField(),
        'hw_scsi_model': fields.SCSIModelField(),
        'hw_serial_port_count': fields.IntegerField(),
        'hw_sound_model': fields.SoundModelField(),
        'hw_time_hpet': fields.FlexibleBooleanField(),
        'hw_tpm_model': fields.TPMModelField(),
        'hw_tpm_version': fields.TPMVersionField(),
        'hw_usb_model': fields.USBControllerModelField(),
        'hw_video_model': fields.VideoModelField(),
        'hw_video_ram': fields.IntegerField(),
        'hw_vif_model': fields.VIFModelField(),
        'hw_vif_multiqueue_enabled': fields.FlexibleBooleanField(),
        'hw_viommu_model': fields.VIOMMUModelField(),
        'hw_virtio_packed_ring': fields.FlexibleBooleanField(),
        'hw_vm_mode': fields.VMModeField(),
        'hw_watchdog_action': fields.WatchdogActionField(),
        'img_bdm_v2': fields.FlexibleBooleanField(),
        'img_bittorrent': fields.FlexibleBooleanField(),
        'img_block_device_mapping': fields.ListOfDictOfNullableStringsField(),
        'img_cache_in_nova': fields.FlexibleBooleanField(),
        'img_compression_level': fields.IntegerField(),
        'img_config_drive': fields.ConfigDrivePolicyField(),
        'img_hide_hypervisor_id': fields.FlexibleBooleanField(),
        'img_hv_requested_version': fields.VersionPredicateField(),
        'img_hv_type': fields.HVTypeField(),
        'img_linked_clone': fields.FlexibleBooleanField(),
        'img_mappings': fields.ListOfDictOfNullableStringsField(),
        'img_owner_id': fields.StringField(),
        'img_root_device_name': fields.StringField(),
        'img_signature': fields.StringField(),
        'img_signature_certificate_uuid': fields.UUIDField(),
        'img_signature_hash_method': fields.ImageSignatureHashTypeField(),
        'img_signature_key_type': fields.ImageSignatureKeyTypeField(),
        'img_use_agent': fields.FlexibleBooleanField(),
        'img_version': fields.IntegerField(),
        'os_admin_user': fields.StringField(),
        'os_command_line': fields.StringField(),
        'os_distro': fields.StringField(),
        'os_require_quiesce': fields.FlexibleBooleanField(),
        'os_secure_boot': fields.SecureBootField(),
        'os_skip_agent_inject_files_at_boot': fields.FlexibleBooleanField(),
        'os_skip_agent_inject_ssh': fields.FlexibleBooleanField(),
        'os_type': fields.OSTypeField(),
        'traits_required': fields.ListOfStringsField(),
    }

    @classmethod
    def from_dict(cls, image_props):
        """From Glance properties: current names, legacy names and
        ``trait:NAME=required`` properties; other keys are ignored."""
        obj = cls()
        traits = []
        for key, value in (image_props or {}).items():
            if key.startswith("trait:"):
                if value == "required":
                    traits.append(key[len("trait:"):])
                continue
            name = LEGACY_PROPERTY_NAMES.get(key, key)
            if name == "hw_auto_disk_config" and key == "auto_disk_config":
                value = "enabled" if str(value).lower() in (
                    "1", "true", "yes", "on") else "disabled"
            if name in cls.fields and value is not None:
                setattr(obj, name, value)
        if traits:
            obj.traits_required = traits
        return obj

    def get(self, name, defvalue=None):
        """The property, or ``defvalue`` when unset (unknown names raise
        AttributeError, as Nova)."""
        if name not in self.fields:
            raise AttributeError(
                "Attribute '%s' is not a valid image property" % name)
        if not self.obj_attr_is_set(name):
            return defvalue
        return getattr(self, name)
