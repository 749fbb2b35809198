"""VirtualMachineSnapshot and VirtualMachineExport controllers.

Snapshot: "" -> InProgress -> Succeeded (readyToUse, with a VirtualMachineSnapshotContent
holding the VM spec and one volume backup per PVC) or Failed when the source VM is missing
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
                    content = self._content(o, vm)
                    st.update(phase="Succeeded", readyToUse=True, creationTime=meta.now(),
                              virtualMachineSnapshotContentName=content,
                              snapshotVolumes={"includedVolumes": [
                                  n for n, _ in _volume_claims(vm)]})
                    meta.set_condition(o, "Progressing", "False", "Operation complete")
                    meta.set_condition(o, "Ready", "True", "Operation complete")
                return o
            try:
                self.store.mutate(kv.SNAPSHOT, ns, name, apply)
            except errors.ApiError:
                pass


    def _content(self, snap, vm):
        """The VirtualMachineSnapshotContent: the VM spec as it was and one volume backup
        per PVC (a CSI VolumeSnapshot in a real cluster); owned by the snapshot. The export
        bytes of each volume are frozen with it."""
        ns, name = kv.ns_name(snap)
        cname = f"vmsnapshot-content-{snap['metadata']['uid']}"
        if self.store.raw(kv.SNAPSHOT_CONTENT, ns, cname) is not None:
            return cname
        backups = []
        for vol, claim in _volume_claims(vm):
            vs_name = f"vmsnapshot-{snap['metadata']['uid']}-volume-{vol}"
            backups.append({"volumeName": vol, "volumeSnapshotName": vs_name,
                            "persistentVolumeClaim": {"metadata": {"name": claim}}})
            self.sim.export_data[(ns, vs_name)] = self.sim.export_data.get(
                (ns, claim), f"KUBESIM-DISK {ns}/{claim}\n".encode())
        body = {"metadata": {"name": cname, "ownerReferences": [meta.owner_ref(snap)]},
                "spec": {"source": {"virtualMachine": {
                    "metadata": {"name": vm["metadata"]["name"],
                                 "labels": dict(vm["metadata"].get("labels") or {})},
                    "spec": meta.clone(vm.get("spec") or {})}},
                    "virtualMachineSnapshotName": name, "volumeBackups": backups},
                "status": {"readyToUse": True, "creationTime": meta.now(),
                           "volumeSnapshotStatus": [{"volumeSnapshotName": b[
                               "volumeSnapshotName"], "readyToUse": True,
                               "creationTime": meta.now()} for b in backups]}}
        self.store.create(kv.SNAPSHOT_CONTENT, ns, body, internal=True)
        return cname


class ExportController:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store

    def _volumes(self, exp):
        ns = exp["metadata"]["namespace"]
        src = (exp.get("spec") or {}).get("source") or {}
        kind, name = src.get("kind"), src.get("name")
        if kind == "PersistentVolumeClaim":
            return [(name, name)] if self.store.raw(kv.PVC, ns, name) is not None else None
        if kind == "VirtualMachineSnapshot":
            snap = self.store.raw(kv.SNAPSHOT, ns, name)
            if snap is None or not (snap.get("status") or {}).get("readyToUse"):
                return None
            content = self.store.raw(kv.SNAPSHOT_CONTENT, ns, (snap.get("status") or {}).get(
                "virtualMachineSnapshotContentName"))
            if content is None:
                return None
            # Each volume is exported under its claim's name, with the bytes it held when
            # the snapshot was taken (served from the volume snapshot).
            return [(b["persistentVolumeClaim"]["metadata"]["name"], b["volumeSnapshotName"])
                    for b in content["spec"].get("volumeBackups") or []]
        if kind == "VirtualMachine":
            vm = self.store.raw(kv.VM, ns, name)
            return [(c, c) for _, c in _volume_claims(vm)] if vm else None
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
                for v, source in vols:
                    self.sim.export_sources[(ns, name, v)] = source
                st.update(phase="Ready", tokenSecretRef=token_ref,
                          serviceName=f"virt-export-{name}")
                st["links"] = {"internal": {"cert": "", "volumes": [
                    {"name": v, "formats": [
                        {"format": "raw", "url": f"{base}/volumes/{v}/disk.img"},
                        {"format": "gzip", "url": f"{base}/volumes/{v}/disk.img.gz"}]}
                    for v, _source in vols]}}
                meta.set_condition(o, "Ready", "True", "podReady")
                return o
            try:
                self.store.mutate(kv.EXPORT, ns, name, apply)
            except errors.ApiError:
                pass
