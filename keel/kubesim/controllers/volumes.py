"""kube-controller-manager's PersistentVolume binder and volume expander.

Binding (one step each): a PVC naming a PersistentVolume in ``spec.volumeName`` (static,
pre-bound provisioning) is Bound once that PV exists, is Available (or already claimed by
this PVC), offers every requested access mode and at least the requested size; the PV then
carries a ``claimRef`` and is Bound as well. A PV whose claim is gone becomes Released under
the ``Retain`` policy and is deleted under ``Delete``. Expansion: a Bound PVC whose request
grew past ``status.capacity`` is resized on the next step (the PV's capacity follows).
PVCs that CDI binds itself (DataVolumes: no PV object) are only expanded.
"""
from .. import errors
from .. import kubevirt as kv
from .. import meta
from .. import quantity


def _request(pvc):
    return (((pvc.get("spec") or {}).get("resources") or {}).get("requests") or {}).get(
        "storage", "0")


def _capacity(obj):
    return ((obj.get("status") or {}).get("capacity") or {}).get("storage") or \
        ((obj.get("spec") or {}).get("capacity") or {}).get("storage") or "0"


class VolumeController:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store

    def step(self):
        pvcs, _ = self.store.items(kv.PVC)
        claimed = set()
        for pvc in pvcs:
            try:
                claimed.add(self._sync_claim(pvc))
            except errors.ApiError:
                pass
        pvs, _ = self.store.items(kv.PV)
        for pv in pvs:
            try:
                self._sync_volume(pv, claimed)
            except errors.ApiError:
                pass

    # -- claims ------------------------------------------------------------------------------
    def _sync_claim(self, pvc):
        ns, name = kv.ns_name(pvc)
        if pvc["metadata"].get("deletionTimestamp"):
            return None
        phase = (pvc.get("status") or {}).get("phase")
        if phase == "Bound":
            self._expand(pvc)
            return (ns, name)
        pv_name = (pvc.get("spec") or {}).get("volumeName")
        pv = self.store.raw(kv.PV, "", pv_name) if pv_name else None
        if pv is None:
            return None
        why = self._mismatch(pvc, pv)
        if why:
            self._pending(pvc, why)
            return None

        def bind_pv(o):
            o["spec"]["claimRef"] = {"kind": "PersistentVolumeClaim", "namespace": ns,
                                     "name": name, "uid": pvc["metadata"]["uid"],
                                     "apiVersion": "v1"}
            o["status"] = {"phase": "Bound"}
            return o
        self.store.mutate(kv.PV, "", pv_name, bind_pv)

        def bind_pvc(o):
            o["status"] = {"phase": "Bound", "accessModes": pv["spec"].get("accessModes"),
                           "capacity": {"storage": _capacity(pv)}}
            return o
        self.store.mutate(kv.PVC, ns, name, bind_pvc)
        return (ns, name)

    @staticmethod
    def _mismatch(pvc, pv):
        ref = (pv.get("spec") or {}).get("claimRef")
        ns, name = kv.ns_name(pvc)
        if ref and (ref.get("namespace"), ref.get("name")) != (ns, name):
            return f"volume {pv['metadata']['name']} already bound to a different claim."
        if (pv.get("status") or {}).get("phase") == "Released":
            return f"volume {pv['metadata']['name']} is Released"
        if ((pvc.get("spec") or {}).get("storageClassName") or "") != \
                (pv["spec"].get("storageClassName") or ""):
            return "storageClassName does not match"
        modes = set(pv["spec"].get("accessModes") or [])
        if not set((pvc.get("spec") or {}).get("accessModes") or []) <= modes:
            return "requested PV is too small or has other access modes"
        if quantity.parse(_request(pvc)) > quantity.parse(_capacity(pv)):
            return "requested PV is too small"
        return None

    def _pending(self, pvc, why):
        ns, name = kv.ns_name(pvc)
        if (pvc.get("status") or {}).get("phase") == "Pending" and \
                meta.get_condition(pvc, "Pending"):
            return
        self.store.mutate(kv.PVC, ns, name, lambda o: (
            o.setdefault("status", {}).__setitem__("phase", "Pending"),
            meta.set_condition(o, "Pending", "True", "VolumeMismatch", why), o)[2])
        self.sim.record_event(pvc, "Warning", "VolumeMismatch", why,
                              "persistentvolume-controller")

    def _expand(self, pvc):
        ns, name = kv.ns_name(pvc)
        want = _request(pvc)
        if quantity.parse(want) <= quantity.parse(_capacity(pvc)):
            return

        def grow(o):
            o["status"].setdefault("capacity", {})["storage"] = want
            meta.remove_condition(o, "Resizing")
            return o
        self.store.mutate(kv.PVC, ns, name, grow)
        pv_name = (pvc.get("spec") or {}).get("volumeName")
        if pv_name and self.store.raw(kv.PV, "", pv_name) is not None:
            self.store.mutate(kv.PV, "", pv_name, lambda o: (
                o["spec"].setdefault("capacity", {}).__setitem__("storage", want), o)[1])
        self.sim.record_event(pvc, "Normal", "VolumeResizeSuccessful",
                              "resize volume succeeded", "volume_expand")

    # -- volumes -----------------------------------------------------------------------------
    def _sync_volume(self, pv, claimed):
        name = pv["metadata"]["name"]
        if pv["metadata"].get("deletionTimestamp"):
            return
        phase = (pv.get("status") or {}).get("phase")
        ref = (pv.get("spec") or {}).get("claimRef")
        if not phase:
            self.store.mutate(kv.PV, "", name, lambda o: (
                o.setdefault("status", {}).__setitem__("phase", "Available"), o)[1])
            return
        if phase != "Bound" or not ref:
            return
        pvc = self.store.raw(kv.PVC, ref.get("namespace"), ref.get("name"))
        if pvc is not None and pvc["metadata"]["uid"] == ref.get("uid") and \
                not pvc["metadata"].get("deletionTimestamp"):
            return
        if pv["spec"].get("persistentVolumeReclaimPolicy") == "Delete":
            self.store.delete(kv.PV, "", name)
            return
        self.store.mutate(kv.PV, "", name, lambda o: (
            o["status"].__setitem__("phase", "Released"), o)[1])
