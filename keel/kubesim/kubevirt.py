"""KubeVirt object vocabulary shared by virt-api and the controllers."""
from . import resources

VM = resources.by_kind("VirtualMachine")
VMI = resources.by_kind("VirtualMachineInstance")
VMIM = resources.by_kind("VirtualMachineInstanceMigration")
DV = resources.by_kind("DataVolume")
SNAPSHOT = resources.by_kind("VirtualMachineSnapshot")
SNAPSHOT_CONTENT = resources.by_kind("VirtualMachineSnapshotContent")
EXPORT = resources.lookup("export.kubevirt.io", "v1beta1", "virtualmachineexports")
POD = resources.by_kind("Pod")
PVC = resources.by_kind("PersistentVolumeClaim")
PV = resources.by_kind("PersistentVolume")
NODE = resources.by_kind("Node")
NAMESPACE = resources.by_kind("Namespace")
EVENT = resources.by_kind("Event")
SECRET = resources.by_kind("Secret")

FINAL_PHASES = ("Succeeded", "Failed")
VMI_FINALIZER = "kubevirt.io/virtualMachineControllerFinalize"
MIGRATION_FINALIZER = "kubevirt.io/migrationJobFinalize"
CREATED_BY = "kubevirt.io/created-by"


def run_strategy(vm):
    spec = vm.get("spec") or {}
    if spec.get("runStrategy"):
        return spec["runStrategy"]
    if spec.get("running") is True:
        return "Always"
    return "Halted"


def phase(vmi):
    return ((vmi or {}).get("status") or {}).get("phase") or ""


def is_final(vmi):
    return phase(vmi) in FINAL_PHASES


def is_paused(vmi):
    for c in ((vmi or {}).get("status") or {}).get("conditions") or []:
        if c.get("type") == "Paused" and c.get("status") == "True":
            return True
    return False


def ns_name(obj):
    md = obj["metadata"]
    return md.get("namespace", ""), md["name"]
