"""The resource kinds the simulator serves and the discovery documents built from them.

The official client only needs discovery for dynamic use, but kubectl-style tools and our own
driver's sanity checks read it, so every kind is described once here and both routing and
discovery derive from this table.
"""
from dataclasses import dataclass, field

CRUD = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


@dataclass(frozen=True)
class ResourceType:
    group: str          # "" for the core group
    version: str
    plural: str
    kind: str
    namespaced: bool = True
    short_names: tuple = ()
    has_status: bool = True   # has /status, so the main endpoint ignores status changes
    crd: bool = False         # custom resource: no strategic merge, PUT needs resourceVersion
    extra_subresources: tuple = field(default=())

    @property
    def api_version(self):
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def storage(self):
        # Versions of one group/resource share their objects, as in the real apiserver.
        return (self.group, self.plural)

    @property
    def singular(self):
        return self.kind.lower()

    @property
    def list_kind(self):
        return self.kind + "List"


def _core(plural, kind, namespaced=True, short=(), status=True, extra=()):
    return ResourceType("", "v1", plural, kind, namespaced, short, status, False, extra)


def _crd(group, version, plural, kind, short=()):
    return ResourceType(group, version, plural, kind, True, short, True, True)


TYPES = [
    _core("namespaces", "Namespace", namespaced=False, short=("ns",), extra=("finalize",)),
    _core("nodes", "Node", namespaced=False, short=("no",)),
    _core("pods", "Pod", short=("po",), extra=("log",)),
    _core("secrets", "Secret", status=False),
    _core("persistentvolumeclaims", "PersistentVolumeClaim", short=("pvc",)),
    _core("persistentvolumes", "PersistentVolume", namespaced=False, short=("pv",)),
    _core("events", "Event", short=("ev",), status=False),
    _crd("kubevirt.io", "v1", "virtualmachines", "VirtualMachine", ("vm", "vms")),
    _crd("kubevirt.io", "v1", "virtualmachineinstances", "VirtualMachineInstance",
         ("vmi", "vmis")),
    _crd("kubevirt.io", "v1", "virtualmachineinstancemigrations",
         "VirtualMachineInstanceMigration", ("vmim",)),
    _crd("cdi.kubevirt.io", "v1beta1", "datavolumes", "DataVolume", ("dv", "dvs")),
    _crd("snapshot.kubevirt.io", "v1beta1", "virtualmachinesnapshots", "VirtualMachineSnapshot",
         ("vmsnapshot",)),
    _crd("snapshot.kubevirt.io", "v1beta1", "virtualmachinesnapshotcontents",
         "VirtualMachineSnapshotContent", ("vmsnapshotcontent",)),
    _crd("export.kubevirt.io", "v1beta1", "virtualmachineexports", "VirtualMachineExport",
         ("vmexport",)),
    # Newer KubeVirt serves exports as v1 as well; both versions share one storage.
    _crd("export.kubevirt.io", "v1", "virtualmachineexports", "VirtualMachineExport",
         ("vmexport",)),
]

_BY_PATH = {(t.group, t.version, t.plural): t for t in TYPES}

SUBRESOURCE_GROUP = "subresources.kubevirt.io"
SUBRESOURCE_VERSION = "v1"
# virt-api's aggregated routes: (resource, subresource, verbs)
VIRT_API_ROUTES = [
    ("virtualmachines", s, ["update"]) for s in
    ("start", "stop", "restart", "migrate", "addvolume", "removevolume")
] + [
    ("virtualmachineinstances", s, ["update"]) for s in
    ("pause", "unpause", "softreboot", "reset", "freeze", "unfreeze", "addvolume", "removevolume")
] + [
    ("virtualmachineinstances", s, ["get"]) for s in ("vnc", "console", "guestosinfo")
]


def lookup(group, version, plural):
    return _BY_PATH.get((group, version, plural))


def by_kind(kind):
    for t in TYPES:
        if t.kind == kind:
            return t
    raise KeyError(kind)


def groups():
    """{group: [versions, preferred first]} for every non-core group and virt-api's own."""
    out = {}
    for t in TYPES:
        if t.group and t.version not in out.setdefault(t.group, []):
            out[t.group].append(t.version)
    out[SUBRESOURCE_GROUP] = [SUBRESOURCE_VERSION]
    return out


def api_versions():
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0",
                                            "serverAddress": "127.0.0.1"}]}


def _group_doc(group, versions):
    gvs = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": gvs, "preferredVersion": gvs[0]}


def api_group_list():
    return {"kind": "APIGroupList", "apiVersion": "v1",
            "groups": [_group_doc(g, v) for g, v in sorted(groups().items())]}


def api_group(group):
    versions = groups().get(group)
    if versions is None:
        return None
    doc = _group_doc(group, versions)
    doc.update(kind="APIGroup", apiVersion="v1")
    return doc


def resource_list(group, version):
    if group == SUBRESOURCE_GROUP and version == SUBRESOURCE_VERSION:
        res = [{"name": f"{r}/{s}", "singularName": "", "namespaced": True, "kind": "",
                "verbs": verbs} for r, s, verbs in VIRT_API_ROUTES]
        return {"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": f"{group}/{version}", "resources": res}
    types = [t for t in TYPES if t.group == group and t.version == version]
    if not types:
        return None
    res = []
    for t in types:
        entry = {"name": t.plural, "singularName": t.singular, "namespaced": t.namespaced,
                 "kind": t.kind, "verbs": CRUD}
        if t.short_names:
            entry["shortNames"] = list(t.short_names)
        res.append(entry)
        subs = (("status",) if t.has_status else ()) + t.extra_subresources
        for s in subs:
            verbs = ["get"] if s == "log" else ["get", "patch", "update"]
            res.append({"name": f"{t.plural}/{s}", "singularName": "",
                        "namespaced": t.namespaced, "kind": t.kind, "verbs": verbs})
    return {"kind": "APIResourceList", "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version, "resources": res}
