"""Field types for keel objects: oslo.versionedobjects' plus Nova's own.

Class names are Nova's because they are part of the object fingerprint and
of the contract recorded in the reference data.  The enumerations' values
are Nova 34's; each ``<Name>Field`` is a BaseEnumField over ``<Name>``.
"""
import re

from oslo_serialization import jsonutils
from oslo_versionedobjects import fields

# Everything oslo offers is usable as keel.objects.fields.<Name>.
from oslo_versionedobjects.fields import *  # noqa: F401,F403

BaseEnumField = fields.BaseEnumField
Enum = fields.Enum
Field = fields.Field
FieldType = fields.FieldType
StringPattern = fields.StringPattern
UnspecifiedDefault = fields.UnspecifiedDefault


class BaseKeelEnum(Enum):
    """Enum whose valid values are the class' ``ALL`` tuple."""

    def __init__(self, **kwargs):
        super().__init__(valid_values=self.__class__.ALL, **kwargs)


BaseNovaEnum = BaseKeelEnum


class ResourceClass(StringPattern):
    """A Placement resource class: a standard name or CUSTOM_*."""

    _REGEX = re.compile(r"^[A-Z0-9_]+$")

    @staticmethod
    def coerce(obj, attr, value):
        value = str(value)
        if not ResourceClass._REGEX.match(value):
            raise ValueError("Malformed resource class %s for %s" %
                             (value, attr))
        return value


class ResourceClassField(fields.AutoTypedField):
    AUTO_TYPE = ResourceClass()


class _AddressPattern(StringPattern):
    """A device address string checked against ``_REGEX``."""

    _REGEX = None
    _KIND = "address"

    @classmethod
    def coerce(cls, obj, attr, value):
        if isinstance(value, str) and cls._REGEX.match(value):
            return value
        raise ValueError("Malformed %s %s" % (cls._KIND, value))


class SCSIAddress(_AddressPattern):
    _REGEX = re.compile(r"^\d+:\d+:\d+:\d+$")
    _KIND = "SCSI address"


class IDEAddress(_AddressPattern):
    _REGEX = re.compile(r"^[0-1]:[0-1]$")
    _KIND = "IDE address"


class USBAddress(_AddressPattern):
    _REGEX = re.compile(r"^\d+:\d+$")
    _KIND = "USB address"


class XenAddress(_AddressPattern):
    _REGEX = re.compile(r"^(\d+|(xvd|hd|sd)[a-z]+\d*)$")
    _KIND = "Xen address"


class SCSIAddressField(fields.AutoTypedField):
    AUTO_TYPE = SCSIAddress()


class IDEAddressField(fields.AutoTypedField):
    AUTO_TYPE = IDEAddress()


class USBAddressField(fields.AutoTypedField):
    AUTO_TYPE = USBAddress()


class XenAddressField(fields.AutoTypedField):
    AUTO_TYPE = XenAddress()


def _network_model():
    # The network model module belongs to another package; import late and
    # fall back to plain JSON data when it is not there.
    try:
        from keel.network import model
    except ImportError:
        return None
    return model


class NetworkModel(FieldType):
    """Network info (a list of VIFs) carried as a JSON string, as Nova."""

    @staticmethod
    def coerce(obj, attr, value):
        if isinstance(value, str):
            value = jsonutils.loads(value)
        model = _network_model()
        if model is not None and not isinstance(value, model.NetworkInfo):
            return model.NetworkInfo.hydrate(value)
        if model is None and not isinstance(value, list):
            raise ValueError("A NetworkModel is required in field %s" % attr)
        return value

    @staticmethod
    def to_primitive(obj, attr, value):
        if hasattr(value, "json"):
            return value.json()
        return jsonutils.dumps(value)

    @staticmethod
    def from_primitive(obj, attr, value):
        return NetworkModel.coerce(obj, attr, value)

    def stringify(self, value):
        return "NetworkModel(%s)" % ",".join(
            str(vif.get("id")) for vif in (value or []))


class NetworkVIFModel(FieldType):
    """One VIF carried as a JSON string."""

    @staticmethod
    def coerce(obj, attr, value):
        if isinstance(value, str):
            value = jsonutils.loads(value)
        model = _network_model()
        if model is not None and not isinstance(value, model.VIF):
            return model.VIF.hydrate(value)
        if model is None and not isinstance(value, dict):
            raise ValueError("A NetworkVIFModel is required in field %s" %
                             attr)
        return value

    @staticmethod
    def to_primitive(obj, attr, value):
        return jsonutils.dumps(value)

    @staticmethod
    def from_primitive(obj, attr, value):
        return NetworkVIFModel.coerce(obj, attr, value)


class NetworkModelField(fields.AutoTypedField):
    AUTO_TYPE = NetworkModel()


class NetworkVIFModelField(fields.AutoTypedField):
    AUTO_TYPE = NetworkVIFModel()


# ---- enumerations (values as Nova 34) ----

class Architecture(BaseKeelEnum):
    ALPHA = 'alpha'
    ARMV6 = 'armv6'
    ARMV7L = 'armv7l'
    ARMV7B = 'armv7b'
    AARCH64 = 'aarch64'
    CRIS = 'cris'
    I686 = 'i686'
    IA64 = 'ia64'
    LM32 = 'lm32'
    M68K = 'm68k'
    MICROBLAZE = 'microblaze'
    MICROBLAZEEL = 'microblazeel'
    MIPS = 'mips'
    MIPSEL = 'mipsel'
    MIPS64 = 'mips64'
    MIPS64EL = 'mips64el'
    OPENRISC = 'openrisc'
    PARISC = 'parisc'
    PARISC64 = 'parisc64'
    PPC = 'ppc'
    PPCLE = 'ppcle'
    PPC64 = 'ppc64'
    PPC64LE = 'ppc64le'
    PPCEMB = 'ppcemb'
    S390 = 's390'
    S390X = 's390x'
    SH4 = 'sh4'
    SH4EB = 'sh4eb'
    SPARC = 'sparc'
    SPARC64 = 'sparc64'
    UNICORE32 = 'unicore32'
    X86_64 = 'x86_64'
    XTENSA = 'xtensa'
    XTENSAEB = 'xtensaeb'

    ALL = (
        ALPHA, ARMV6, ARMV7L, ARMV7B, AARCH64, CRIS, I686, IA64, LM32, M68K,
        MICROBLAZE, MICROBLAZEEL, MIPS, MIPSEL, MIPS64, MIPS64EL, OPENRISC,
        PARISC, PARISC64, PPC, PPCLE, PPC64, PPC64LE, PPCEMB, S390, S390X,
        SH4, SH4EB, SPARC, SPARC64, UNICORE32, X86_64, XTENSA, XTENSAEB,
    )


class BlockDeviceDestinationType(BaseKeelEnum):
    LOCAL = 'local'
    VOLUME = 'volume'

    ALL = (LOCAL, VOLUME,)


class BlockDeviceEncryptionFormatType(BaseKeelEnum):
    PLAIN = 'plain'
    LUKS = 'luks'
    LUKSV2 = 'luksv2'

    ALL = (PLAIN, LUKS, LUKSV2,)


class BlockDeviceSourceType(BaseKeelEnum):
    BLANK = 'blank'
    IMAGE = 'image'
    SNAPSHOT = 'snapshot'
    VOLUME = 'volume'

    ALL = (BLANK, IMAGE, SNAPSHOT, VOLUME,)


class BlockDeviceType(BaseKeelEnum):
    CDROM = 'cdrom'
    DISK = 'disk'
    FLOPPY = 'floppy'
    FS = 'fs'
    LUN = 'lun'

    ALL = (
        CDROM, DISK, FLOPPY, FS, LUN,
    )


class CPUAllocationPolicy(BaseKeelEnum):
    DEDICATED = 'dedicated'
    SHARED = 'shared'
    MIXED = 'mixed'

    ALL = (DEDICATED, SHARED, MIXED,)


class CPUEmulatorThreadsPolicy(BaseKeelEnum):
    SHARE = 'share'
    ISOLATE = 'isolate'

    ALL = (SHARE, ISOLATE,)


class CPUFeaturePolicy(BaseKeelEnum):
    FORCE = 'force'
    REQUIRE = 'require'
    OPTIONAL = 'optional'
    DISABLE = 'disable'
    FORBID = 'forbid'

    ALL = (
        FORCE, REQUIRE, OPTIONAL, DISABLE, FORBID,
    )


class CPUMatch(BaseKeelEnum):
    MINIMUM = 'minimum'
    EXACT = 'exact'
    STRICT = 'strict'

    ALL = (MINIMUM, EXACT, STRICT,)


class CPUMode(BaseKeelEnum):
    CUSTOM = 'custom'
    HOST_MODEL = 'host-model'
    HOST_PASSTHROUGH = 'host-passthrough'

    ALL = (CUSTOM, HOST_MODEL, HOST_PASSTHROUGH,)


class CPUThreadAllocationPolicy(BaseKeelEnum):
    PREFER = 'prefer'
    ISOLATE = 'isolate'
    REQUIRE = 'require'

    ALL = (PREFER, ISOLATE, REQUIRE,)


class ConfigDrivePolicy(BaseKeelEnum):
    OPTIONAL = 'optional'
    MANDATORY = 'mandatory'

    ALL = (OPTIONAL, MANDATORY,)


class DiskBus(BaseKeelEnum):
    FDC = 'fdc'
    IDE = 'ide'
    SATA = 'sata'
    SCSI = 'scsi'
    USB = 'usb'
    VIRTIO = 'virtio'
    XEN = 'xen'
    LXC = 'lxc'
    UML = 'uml'

    ALL = (
        FDC, IDE, SATA, SCSI, USB, VIRTIO, XEN, LXC, UML,
    )


class FirmwareType(BaseKeelEnum):
    UEFI = 'uefi'
    BIOS = 'bios'

    ALL = (UEFI, BIOS,)


class HVType(BaseKeelEnum):
    BAREMETAL = 'baremetal'
    BHYVE = 'bhyve'
    DOCKER = 'docker'
    FAKE = 'fake'
    HYPERV = 'hyperv'
    IRONIC = 'ironic'
    KQEMU = 'kqemu'
    KVM = 'kvm'
    LXC = 'lxc'
    LXD = 'lxd'
    OPENVZ = 'openvz'
    PARALLELS = 'parallels'
    PHYP = 'phyp'
    QEMU = 'qemu'
    TEST = 'test'
    UML = 'uml'
    VBOX = 'vbox'
    VZ = 'vz'
    VMWARE = 'vmware'
    XEN = 'xen'
    ZVM = 'zvm'
    PRSM = 'prsm'

    ALL = (
        BAREMETAL, BHYVE, DOCKER, FAKE, HYPERV, IRONIC, KQEMU, KVM, LXC, LXD,
        OPENVZ, PARALLELS, PHYP, QEMU, TEST, UML, VBOX, VZ, VMWARE, XEN, ZVM,
        PRSM,
    )


class HypervisorDriver(BaseKeelEnum):
    LIBVIRT = 'libvirt'
    XENAPI = 'xenapi'
    VMWAREAPI = 'vmwareapi'
    IRONIC = 'ironic'
    HYPERV = 'hyperv'

    ALL = (
        LIBVIRT, XENAPI, VMWAREAPI, IRONIC, HYPERV,
    )


class ImageSignatureHashType(BaseKeelEnum):
    SHA_224 = 'SHA-224'
    SHA_256 = 'SHA-256'
    SHA_384 = 'SHA-384'
    SHA_512 = 'SHA-512'

    ALL = (SHA_224, SHA_256, SHA_384, SHA_512,)


class ImageSignatureKeyType(BaseKeelEnum):
    DSA = 'DSA'
    ECC_SECP384R1 = 'ECC_SECP384R1'
    ECC_SECP521R1 = 'ECC_SECP521R1'
    ECC_SECT409K1 = 'ECC_SECT409K1'
    ECC_SECT409R1 = 'ECC_SECT409R1'
    ECC_SECT571K1 = 'ECC_SECT571K1'
    ECC_SECT571R1 = 'ECC_SECT571R1'
    RSA_PSS = 'RSA-PSS'

    ALL = (
        DSA, ECC_SECP384R1, ECC_SECP521R1, ECC_SECT409K1, ECC_SECT409R1,
        ECC_SECT571K1, ECC_SECT571R1, RSA_PSS,
    )


class InputBus(BaseKeelEnum):
    USB = 'usb'
    VIRTIO = 'virtio'

    ALL = (USB, VIRTIO,)


class InstancePowerState(BaseKeelEnum):
    PENDING = 'pending'
    RUNNING = 'running'
    _UNUSED = '_unused'
    PAUSED = 'paused'
    SHUTDOWN = 'shutdown'
    _UNUSED = '_unused'
    CRASHED = 'crashed'
    SUSPENDED = 'suspended'

    ALL = (
        PENDING, RUNNING, _UNUSED, PAUSED, SHUTDOWN, _UNUSED, CRASHED,
        SUSPENDED,
    )


class MaxPhysAddrMode(BaseKeelEnum):
    PASSTHROUGH = 'passthrough'
    EMULATE = 'emulate'

    ALL = (PASSTHROUGH, EMULATE,)


class MemEncryptionModel(BaseKeelEnum):
    AMD_SEV = 'amd-sev'
    AMD_SEV_ES = 'amd-sev-es'
    AMD_SEV_SNP = 'amd-sev-snp'
    INTEL_TDX = 'intel-tdx'

    ALL = (AMD_SEV, AMD_SEV_ES, AMD_SEV_SNP, INTEL_TDX,)


class MigrationType(BaseKeelEnum):
    MIGRATION = 'migration'
    RESIZE = 'resize'
    LIVE_MIGRATION = 'live-migration'
    EVACUATION = 'evacuation'

    ALL = (MIGRATION, RESIZE, LIVE_MIGRATION, EVACUATION,)


class MonitorMetricType(BaseKeelEnum):
    CPU_FREQUENCY = 'cpu.frequency'
    CPU_USER_TIME = 'cpu.user.time'
    CPU_KERNEL_TIME = 'cpu.kernel.time'
    CPU_IDLE_TIME = 'cpu.idle.time'
    CPU_IOWAIT_TIME = 'cpu.iowait.time'
    CPU_USER_PERCENT = 'cpu.user.percent'
    CPU_KERNEL_PERCENT = 'cpu.kernel.percent'
    CPU_IDLE_PERCENT = 'cpu.idle.percent'
    CPU_IOWAIT_PERCENT = 'cpu.iowait.percent'
    CPU_PERCENT = 'cpu.percent'
    NUMA_MEMBW_MAX = 'numa.membw.max'
    NUMA_MEMBW_CURRENT = 'numa.membw.current'

    ALL = (
        CPU_FREQUENCY, CPU_USER_TIME, CPU_KERNEL_TIME, CPU_IDLE_TIME,
        CPU_IOWAIT_TIME, CPU_USER_PERCENT, CPU_KERNEL_PERCENT,
        CPU_IDLE_PERCENT, CPU_IOWAIT_PERCENT, CPU_PERCENT, NUMA_MEMBW_MAX,
        NUMA_MEMBW_CURRENT,
    )


class OSType(BaseKeelEnum):
    LINUX = 'linux'
    WINDOWS = 'windows'

    ALL = (LINUX, WINDOWS,)


class PCINUMAAffinityPolicy(BaseKeelEnum):
    REQUIRED = 'required'
    LEGACY = 'legacy'
    PREFERRED = 'preferred'
    SOCKET = 'socket'

    ALL = (REQUIRED, LEGACY, PREFERRED, SOCKET,)


class PciDeviceStatus(BaseKeelEnum):
    AVAILABLE = 'available'
    CLAIMED = 'claimed'
    ALLOCATED = 'allocated'
    REMOVED = 'removed'
    DELETED = 'deleted'
    UNAVAILABLE = 'unavailable'
    UNCLAIMABLE = 'unclaimable'

    ALL = (
        AVAILABLE, CLAIMED, ALLOCATED, REMOVED, DELETED, UNAVAILABLE,
        UNCLAIMABLE,
    )


class PciDeviceType(BaseKeelEnum):
    TYPE_PCI = 'type-PCI'
    TYPE_PF = 'type-PF'
    TYPE_VF = 'type-VF'
    VDPA = 'vdpa'

    ALL = (TYPE_PCI, TYPE_PF, TYPE_VF, VDPA,)


class PointerModel(BaseKeelEnum):
    USBTABLET = 'usbtablet'

    ALL = (USBTABLET,)


class RNGModel(BaseKeelEnum):
    VIRTIO = 'virtio'

    ALL = (VIRTIO,)


class SCSIModel(BaseKeelEnum):
    BUSLOGIC = 'buslogic'
    IBMVSCSI = 'ibmvscsi'
    LSILOGIC = 'lsilogic'
    LSISAS1068 = 'lsisas1068'
    LSISAS1078 = 'lsisas1078'
    VIRTIO_SCSI = 'virtio-scsi'
    VMPVSCSI = 'vmpvscsi'

    ALL = (
        BUSLOGIC, IBMVSCSI, LSILOGIC, LSISAS1068, LSISAS1078, VIRTIO_SCSI,
        VMPVSCSI,
    )


class SecureBoot(BaseKeelEnum):
    REQUIRED = 'required'
    DISABLED = 'disabled'
    OPTIONAL = 'optional'

    ALL = (REQUIRED, DISABLED, OPTIONAL,)


class ShareMappingProto(BaseKeelEnum):
    NFS = 'NFS'
    CEPHFS = 'CEPHFS'

    ALL = (NFS, CEPHFS,)


class ShareMappingStatus(BaseKeelEnum):
    ATTACHING = 'attaching'
    DETACHING = 'detaching'
    ACTIVE = 'active'
    INACTIVE = 'inactive'
    ERROR = 'error'

    ALL = (
        ATTACHING, DETACHING, ACTIVE, INACTIVE, ERROR,
    )


class SoundModel(BaseKeelEnum):
    SB16 = 'sb16'
    ES1370 = 'es1370'
    PCSPK = 'pcspk'
    AC97 = 'ac97'
    ICH6 = 'ich6'
    ICH9 = 'ich9'
    USB = 'usb'
    VIRTIO = 'virtio'

    ALL = (
        SB16, ES1370, PCSPK, AC97, ICH6, ICH9, USB, VIRTIO,
    )


class TPMModel(BaseKeelEnum):
    TPM_TIS = 'tpm-tis'
    TPM_CRB = 'tpm-crb'

    ALL = (TPM_TIS, TPM_CRB,)


class TPMVersion(BaseKeelEnum):
    _1_2 = '1.2'
    _2_0 = '2.0'

    ALL = (_1_2, _2_0,)


class USBControllerModel(BaseKeelEnum):
    NONE = 'none'
    NEC_XHCI = 'nec-xhci'
    QEMU_XHCI = 'qemu-xhci'

    ALL = (NONE, NEC_XHCI, QEMU_XHCI,)


class VIFModel(BaseKeelEnum):
    VIRTIO = 'virtio'
    NE2K_PCI = 'ne2k_pci'
    PCNET = 'pcnet'
    RTL8139 = 'rtl8139'
    E1000 = 'e1000'
    E1000E = 'e1000e'
    NETFRONT = 'netfront'
    SPAPR_VLAN = 'spapr-vlan'
    LAN9118 = 'lan9118'
    SRIOV = 'sriov'
    VMXNET = 'vmxnet'
    VMXNET3 = 'vmxnet3'
    IGB = 'igb'

    ALL = (
        VIRTIO, NE2K_PCI, PCNET, RTL8139, E1000, E1000E, NETFRONT, SPAPR_VLAN,
        LAN9118, SRIOV, VMXNET, VMXNET3, IGB,
    )


class VIOMMUModel(BaseKeelEnum):
    INTEL = 'intel'
    SMMUV3 = 'smmuv3'
    VIRTIO = 'virtio'
    AUTO = 'auto'

    ALL = (INTEL, SMMUV3, VIRTIO, AUTO,)


class VMMode(BaseKeelEnum):
    HVM = 'hvm'
    XEN = 'xen'
    UML = 'uml'
    EXE = 'exe'

    ALL = (HVM, XEN, UML, EXE,)


class VideoModel(BaseKeelEnum):
    CIRRUS = 'cirrus'
    QXL = 'qxl'
    VGA = 'vga'
    VMVGA = 'vmvga'
    XEN = 'xen'
    VIRTIO = 'virtio'
    GOP = 'gop'
    NONE = 'none'
    BOCHS = 'bochs'

    ALL = (
        CIRRUS, QXL, VGA, VMVGA, XEN, VIRTIO, GOP, NONE, BOCHS,
    )


class WatchdogAction(BaseKeelEnum):
    NONE = 'none'
    PAUSE = 'pause'
    POWEROFF = 'poweroff'
    RESET = 'reset'
    DISABLED = 'disabled'

    ALL = (
        NONE, PAUSE, POWEROFF, RESET, DISABLED,
    )


class ArchitectureField(BaseEnumField):
    AUTO_TYPE = Architecture()


class BlockDeviceDestinationTypeField(BaseEnumField):
    AUTO_TYPE = BlockDeviceDestinationType()


class BlockDeviceEncryptionFormatTypeField(BaseEnumField):
    AUTO_TYPE = BlockDeviceEncryptionFormatType()


class BlockDeviceSourceTypeField(BaseEnumField):
    AUTO_TYPE = BlockDeviceSourceType()


class BlockDeviceTypeField(BaseEnumField):
    AUTO_TYPE = BlockDeviceType()


class CPUAllocationPolicyField(BaseEnumField):
    AUTO_TYPE = CPUAllocationPolicy()


class CPUEmulatorThreadsPolicyField(BaseEnumField):
    AUTO_TYPE = CPUEmulatorThreadsPolicy()


class CPUFeaturePolicyField(BaseEnumField):
    AUTO_TYPE = CPUFeaturePolicy()


class CPUMatchField(BaseEnumField):
    AUTO_TYPE = CPUMatch()


class CPUModeField(BaseEnumField):
    AUTO_TYPE = CPUMode()


class CPUThreadAllocationPolicyField(BaseEnumField):
    AUTO_TYPE = CPUThreadAllocationPolicy()


class ConfigDrivePolicyField(BaseEnumField):
    AUTO_TYPE = ConfigDrivePolicy()


class DiskBusField(BaseEnumField):
    AUTO_TYPE = DiskBus()


class FirmwareTypeField(BaseEnumField):
    AUTO_TYPE = FirmwareType()


class HVTypeField(BaseEnumField):
    AUTO_TYPE = HVType()


class HypervisorDriverField(BaseEnumField):
    AUTO_TYPE = HypervisorDriver()


class ImageSignatureHashTypeField(BaseEnumField):
    AUTO_TYPE = ImageSignatureHashType()


class ImageSignatureKeyTypeField(BaseEnumField):
    AUTO_TYPE = ImageSignatureKeyType()


class InputBusField(BaseEnumField):
    AUTO_TYPE = InputBus()


class InstancePowerStateField(BaseEnumField):
    AUTO_TYPE = InstancePowerState()


class MaxPhysAddrModeField(BaseEnumField):
    AUTO_TYPE = MaxPhysAddrMode()


class MemEncryptionModelField(BaseEnumField):
    AUTO_TYPE = MemEncryptionModel()


class MigrationTypeField(BaseEnumField):
    AUTO_TYPE = MigrationType()


class MonitorMetricTypeField(BaseEnumField):
    AUTO_TYPE = MonitorMetricType()


class OSTypeField(BaseEnumField):
    AUTO_TYPE = OSType()


class PCINUMAAffinityPolicyField(BaseEnumField):
    AUTO_TYPE = PCINUMAAffinityPolicy()


class PciDeviceStatusField(BaseEnumField):
    AUTO_TYPE = PciDeviceStatus()


class PciDeviceTypeField(BaseEnumField):
    AUTO_TYPE = PciDeviceType()


class PointerModelField(BaseEnumField):
    AUTO_TYPE = PointerModel()


class RNGModelField(BaseEnumField):
    AUTO_TYPE = RNGModel()


class SCSIModelField(BaseEnumField):
    AUTO_TYPE = SCSIModel()


class SecureBootField(BaseEnumField):
    AUTO_TYPE = SecureBoot()


class ShareMappingProtoField(BaseEnumField):
    AUTO_TYPE = ShareMappingProto()


class ShareMappingStatusField(BaseEnumField):
    AUTO_TYPE = ShareMappingStatus()


class SoundModelField(BaseEnumField):
    AUTO_TYPE = SoundModel()


class TPMModelField(BaseEnumField):
    AUTO_TYPE = TPMModel()


class TPMVersionField(BaseEnumField):
    AUTO_TYPE = TPMVersion()


class USBControllerModelField(BaseEnumField):
    AUTO_TYPE = USBControllerModel()


class VIFModelField(BaseEnumField):
    AUTO_TYPE = VIFModel()


class VIOMMUModelField(BaseEnumField):
    AUTO_TYPE = VIOMMUModel()


class VMModeField(BaseEnumField):
    AUTO_TYPE = VMMode()


class VideoModelField(BaseEnumField):
    AUTO_TYPE = VideoModel()


class WatchdogActionField(BaseEnumField):
    AUTO_TYPE = WatchdogAction()


# power_state integers stored on instances <-> InstancePowerState names.
_POWER_STATE_BY_INDEX = {
    0x00: InstancePowerState.PENDING,
    0x01: InstancePowerState.RUNNING,
    0x03: InstancePowerState.PAUSED,
    0x04: InstancePowerState.SHUTDOWN,
    0x06: InstancePowerState.CRASHED,
    0x07: InstancePowerState.SUSPENDED,
}


def power_state_from_index(index):
    return _POWER_STATE_BY_INDEX[index]


def power_state_index(name):
    for index, value in _POWER_STATE_BY_INDEX.items():
        if value == name:
            return index
    raise ValueError("Unknown power state %s" % name)
