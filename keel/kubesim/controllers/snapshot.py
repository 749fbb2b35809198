"""VirtualMachineSnapshot and VirtualMachineExport controllers.

Snapshot: "" -> InProgress -> Succeeded (readyToUse) or Failed when the source VM is missing
or a fault is armed. Export: "" -> Pending -> Ready, with links whose URLs point back at
this simulator, which serves the volume bytes when given the export token.
"""
import base64

from .. import errors
from .. import kubevirt as kv
from .. import meta


def _volume_claims(vm):
    spec = ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}
    out = []
    for v in spec.get("volumes") or []:
        claim = (v.get("dataVolume") or {}).get("name") or \
            (v.get("persistentVolumeClaim") or {}).get("claimName")
        if claim:
            out.append((v["name"], claim))
    return out


class SnapshotController:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store

    def step(self):
        items, _ = self.store.items(kv.SNAPSHOT)
        for snap in items:
            phase = (snap.get("status") or {}).get("phase", "")
            if snap["metadata"].get("deletionTimestamp") or phase in ("Succeeded", "Failed"):
                continue
            ns, name = kv.ns_name(snap)
            src = (snap.get("spec") or {}).get("source") or {}
            vm = self.store.raw(kv.VM, ns, src.get("name"))

            def apply(o, phase=phase, vm=vm, name=name):
                st = o.setdefault("status", {})
                if vm is None:
                    st.update(phase="Failed", readyToUse=False,
                              error={"message": f"VirtualMachine {src.get('name')} not found",
                                     "time": meta.now()})
                elif phase == "":
                    running = self.store.raw(kv.VMI, ns, vm["metadata"]["name"]) is not None
                    st.update(phase="InProgress", readyToUse=False,
                              sourceUID=vm["metadata"]["uid"],
                              indications=["Online", "GuestAgent"] if running else [])
                    meta.set_condition(o, "Progressing", "True", "InProgress")
                elif self.sim.kv_faults.take("snapshot", name):
                    st.update(phase="Failed", readyToUse=False,
                              error={"message": "snapshot failed: injected fault",
                                     "time": meta.now()})
                    meta.set_condition(o, "Progressing", "False", "Failed")
                else:
                    st.update(phase="Succeeded", readyToUse=True, creationTime=meta.now(),
                              virtualMachineSnapshotContentName=f"vmsnapshot-content-"
                                                                f"{o['metadata']['uid']}",
                              snapshotVolumes={"includedVolumes": [
                                  n for n, _ in _volume_claims(vm)]})
                    meta.set_condition(o, "Progressing", "False", "Operation complete")
                    meta.set_condition(o, "Ready", "True", "Operation complete")
                return o
            try:
                self.store.mutate(kv.SNAPSHOT, ns, name, apply)
            except errors.ApiError:
                pass


class ExportController:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store

    def _volumes(self, exp):
        ns = exp["metadata"]["namespace"]
        src = (exp.get("spec") or {}).get("source") or {}
        kind, name = src.get("kind"), src.get("name")
        if kind == "PersistentVolumeClaim":
            return [name] if self.store.raw(kv.PVC, ns, name) is not None else None
        if kind == "VirtualMachineSnapshot":
            snap = self.store.raw(kv.SNAPSHOT, ns, name)
            if snap is None or not (snap.get("status") or {}).get("readyToUse"):
                return None
            vm = self.store.raw(kv.VM, ns, snap["spec"]["source"]["name"])
            return [c for _, c in _volume_claims(vm)] if vm else None
        if kind == "VirtualMachine":
            vm = self.store.raw(kv.VM, ns, name)
            return [c for _, c in _volume_claims(vm)] if vm else None
        return None

    def _ensure_token(self, exp):
        """Without a tokenSecretRef KubeVirt generates the token Secret itself."""
        ns, name = kv.ns_name(exp)
        ref = (exp.get("spec") or {}).get("tokenSecretRef") or f"export-token-{name}"
        if self.store.raw(kv.SECRET, ns, ref) is None:
            token = base64.b64encode(meta.new_uid().encode()).decode()
            self.store.create(kv.SECRET, ns, {"metadata": {
                "name": ref, "ownerReferences": [meta.owner_ref(exp)]},
                "data": {"token": token}}, internal=True)

    def step(self):
        items, _ = self.store.items(kv.EXPORT)
        for exp in items:
            phase = (exp.get("status") or {}).get("phase", "")
            if exp["metadata"].get("deletionTimestamp") or phase == "Ready":
                continue
            ns, name = kv.ns_name(exp)
            vols = self._volumes(exp)
            self._ensure_token(exp)

            def apply(o, phase=phase, vols=vols, name=name, ns=ns):
                st = o.setdefault("status", {})
                token_ref = (o.get("spec") or {}).get("tokenSecretRef") or f"export-token-{name}"
                if phase == "" or vols is None:
                    st.update(phase="Pending", tokenSecretRef=token_ref)
                    meta.set_condition(o, "Ready", "False", "podPending" if vols is not None
                                       else "sourceNotReady")
                    return o
                base = f"{self.sim.url}/kubesim/export/{ns}/{name}"
                st.update(phase="Ready", tokenSecretRef=token_ref,
                          serviceName=f"virt-export-{name}")
                st["links"] = {"internal": {"cert": "", "volumes": [
                    {"name": v, "formats": [
                        {"format": "raw", "url": f"{base}/volumes/{v}/disk.img"},
                        {"format": "gzip", "url": f"{base}/volumes/{v}/disk.img.gz"}]}
                    for v in vols]}}
                meta.set_condition(o, "Ready", "True", "podReady")
                return o
            try:
                self.store.mutate(kv.EXPORT, ns, name, apply)
            except errors.ApiError:
                pass
