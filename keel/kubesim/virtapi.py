"""virt-api's aggregated subresources: /apis/subresources.kubevirt.io/v1/namespaces/{ns}/...

Each handler validates the way virt-api does (409 "VM is already running", "VMI is not
running", ...) and then records what virt-api records: state change requests and volume
requests on the VM status, which the simulated virt-controller acts on at its next step, or
for VMI actions the result virt-handler reports (Paused condition, guest reboot count).
"""
import copy

from . import errors
from . import kubevirt as kv
from . import meta
from . import websocket

VM_ACTIONS = ("start", "stop", "restart", "migrate", "addvolume", "removevolume")
VMI_PUT = ("pause", "unpause", "softreboot", "reset", "freeze", "unfreeze",
           "addvolume", "removevolume")
VMI_GET = ("vnc", "console", "guestosinfo")


class VirtApi:
    def __init__(self, sim):
        self.sim = sim
        self.store = sim.store

    def route(self, req, rest):
        h = req.handler
        if rest in (["version"], ["healthz"]):
            return "get", lambda: h.send_json(200, {"gitVersion": "v1.7.0-kubesim"}
                                              if rest == ["version"] else {})
        if len(rest) != 5 or rest[0] != "namespaces":
            raise errors.ApiError(404, "NotFound",
                                  "the server could not find the requested resource")
        _, ns, resource, name, action = rest
        if resource == "virtualmachines" and action in VM_ACTIONS:
            method, fn = "PUT", getattr(self, "vm_" + action)
        elif resource == "virtualmachineinstances" and action in VMI_PUT:
            method, fn = "PUT", getattr(self, "vmi_" + action)
        elif resource == "virtualmachineinstances" and action in VMI_GET:
            method, fn = "GET", getattr(self, "vmi_" + action)
        else:
            raise errors.ApiError(404, "NotFound",
                                  "the server could not find the requested resource")
        if req.method != method:
            raise errors.method_not_allowed()
        verb = "update" if method == "PUT" else "get"
        return verb, lambda: fn(req, h, ns, name)

    # -- helpers ---------------------------------------------------------------------------
    def _vm(self, ns, name):
        return self._fetch(kv.VM, ns, name, "virtualmachine")

    def _fetch(self, rt, ns, name, singular):
        # virt-api reports a missing object by its singular resource name
        obj = self.store.raw(rt, ns, name)
        if obj is None:
            raise errors.ApiError(404, "NotFound", f'{singular}.kubevirt.io "{name}" not found',
                                  {"name": name, "group": "kubevirt.io", "kind": singular})
        return meta.clone(obj)

    def _vmi(self, ns, name):
        return self.store.raw(kv.VMI, ns, name)

    @staticmethod
    def _dry(body):
        return (body or {}).get("dryRun") in (["All"], "All")

    def _request_state_change(self, vm, changes, dry):
        """virt-api's getChangeRequestJson: refuse to queue behind a pending start/stop."""
        ns, name = kv.ns_name(vm)
        pending = (vm.get("status") or {}).get("stateChangeRequests") or []
        if pending and not (len(changes) == 1 and changes[0]["action"] == "Stop"):
            raise errors.internal("unable to complete request: stop/start already underway")
        if dry:
            return

        def apply(obj):
            obj.setdefault("status", {})["stateChangeRequests"] = changes
            obj["status"].pop("startFailure", None)
            return obj
        self.store.mutate(kv.VM, ns, name, apply)

    def _set_run_strategy(self, vm, strategy, dry):
        if dry:
            return
        ns, name = kv.ns_name(vm)

        def apply(obj):
            if "runStrategy" in obj["spec"] or "running" not in obj["spec"]:
                obj["spec"]["runStrategy"] = strategy
            else:
                obj["spec"]["running"] = strategy == "Always"
            return obj
        self.store.mutate(kv.VM, ns, name, apply)

    @staticmethod
    def _accepted(h):
        h.send_bytes(202, b"", "application/json")

    # -- VM actions ------------------------------------------------------------------------
    def vm_start(self, req, h, ns, name):
        body = req.json(default={}) or {}
        vm = self._vm(ns, name)
        vmi = self._vmi(ns, name)
        if vmi is not None and not kv.is_final(vmi) and kv.phase(vmi) not in ("", "Unknown"):
            raise errors.kv_conflict("virtualmachine", name, "VM is already running")
        strategy = kv.run_strategy(vm)
        data = {"paused": "true"} if body.get("paused") else None
        start = {"action": "Start"}
        if data:
            start["data"] = data
        if strategy == "Halted":
            if data:
                self._request_state_change(vm, [start], self._dry(body))
            else:
                self._set_run_strategy(vm, "Always", self._dry(body))
        elif strategy in ("Manual", "RerunOnFailure"):
            if strategy == "RerunOnFailure" and kv.phase(vmi) == "Failed":
                raise errors.kv_conflict("virtualmachine", name, "RerunOnFailure does not "
                                         "support starting VM from failed state")
            if vmi is not None and kv.is_final(vmi):
                changes = [{"action": "Stop", "uid": vmi["metadata"]["uid"]}, start]
            else:
                changes = [start]
            self._request_state_change(vm, changes, self._dry(body))
        else:
            raise errors.kv_conflict("virtualmachine", name,
                                     f"{strategy} does not support manual start requests")
        self._accepted(h)

    def vm_stop(self, req, h, ns, name):
        body = req.json(default={}) or {}
        vm = self._vm(ns, name)
        vmi = self._vmi(ns, name)
        running = vmi is not None and not kv.is_final(vmi)
        grace = body.get("gracePeriod")
        old_grace = None
        if running and grace is not None:
            old_grace = (vmi.get("spec") or {}).get("terminationGracePeriodSeconds")
            if not self._dry(body):
                def apply(obj):
                    obj["spec"]["terminationGracePeriodSeconds"] = grace
                    return obj
                self.store.mutate(kv.VMI, ns, name, apply)
        strategy = kv.run_strategy(vm)
        if strategy in ("Halted", "Manual", "RerunOnFailure"):
            if not running:
                raise errors.kv_conflict("virtualmachine", name, "VM is not running")
            if strategy == "Halted" and (grace is None or (old_grace is not None
                                                           and grace >= old_grace)):
                raise errors.kv_conflict("virtualmachine", name, "Halted only supports manual "
                                         "stop requests with a shorter graceperiod")
            self._request_state_change(vm, [{"action": "Stop", "uid": vmi["metadata"]["uid"]}],
                                       self._dry(body))
        else:
            self._set_run_strategy(vm, "Halted", self._dry(body))
        self._accepted(h)

    def vm_restart(self, req, h, ns, name):
        body = req.json(default={}) or {}
        grace = body.get("gracePeriodSeconds")
        if grace is not None and grace > 0:
            raise errors.bad_request("For force restart, only gracePeriod=0 is supported for now")
        if grace is not None and grace < 0:
            raise errors.bad_request("gracePeriod has to be greater or equal to 0")
        vm = self._vm(ns, name)
        strategy = kv.run_strategy(vm)
        if strategy in ("Halted", "Once"):
            raise errors.kv_conflict("virtualmachine", name, f"RunStategy {strategy} does not "
                                     "support manual restart requests")
        vmi = self._vmi(ns, name)
        if vmi is None:
            raise errors.kv_conflict("virtualmachine", name, "VM is not running: Halted")
        self._request_state_change(vm, [{"action": "Stop", "uid": vmi["metadata"]["uid"]},
                                        {"action": "Start"}], self._dry(body))
        if grace == 0 and not self._dry(body):
            for pod in self.sim.launcher_pods(vmi):
                try:
                    self.store.delete(kv.POD, ns, pod["metadata"]["name"])
                except errors.ApiError:
                    pass
        self._accepted(h)

    def vm_migrate(self, req, h, ns, name):
        body = req.json(default={}) or {}
        self._vm(ns, name)
        vmi = self._fetch(kv.VMI, ns, name, "virtualmachineinstance")
        if kv.phase(vmi) != "Running":
            raise errors.kv_conflict("virtualmachine", name, "VM is not running")
        spec = {"vmiName": name}
        if body.get("addedNodeSelector"):
            spec["addedNodeSelector"] = body["addedNodeSelector"]
        self.sim.admit_migration(ns, spec)
        self.store.create(kv.VMIM, ns, {"metadata": {"generateName": "kubevirt-migrate-vm-"},
                                        "spec": spec}, dry_run=self._dry(body))
        self._accepted(h)

    def vm_addvolume(self, req, h, ns, name):
        body = self._volume_options(req, add=True)
        vm = self._vm(ns, name)
        self._queue_volume_request(vm, {"addVolumeOptions": body}, body["name"], add=True,
                                   dry=self._dry(body))
        self._accepted(h)

    def vm_removevolume(self, req, h, ns, name):
        body = self._volume_options(req, add=False)
        vm = self._vm(ns, name)
        self._queue_volume_request(vm, {"removeVolumeOptions": body}, body["name"], add=False,
                                   dry=self._dry(body))
        self._accepted(h)

    @staticmethod
    def _volume_options(req, add):
        body = req.json(default={}) or {}
        what = "AddVolumeOptions" if add else "RemoveVolumeOptions"
        if not body.get("name"):
            raise errors.bad_request(f"{what} requires name to be set")
        if add and not body.get("disk"):
            raise errors.bad_request(f"{what} requires disk to not be nil")
        if add:
            src = body.get("volumeSource") or {}
            if not (src.get("persistentVolumeClaim") or src.get("dataVolume")):
                raise errors.bad_request(f"{what} requires VolumeSource to not be nil")
        return body

    def _queue_volume_request(self, vm, request, vol_name, add, dry):
        ns, name = kv.ns_name(vm)
        volumes = (((vm.get("spec") or {}).get("template") or {}).get("spec") or {}).get(
            "volumes") or []
        existing = {v.get("name"): v for v in volumes}
        if add and vol_name in existing:
            raise errors.bad_request(f"Unable to add volume [{vol_name}] because volume with "
                                     "that name already exists")
        if not add:
            vol = existing.get(vol_name)
            if vol is None:
                raise errors.bad_request(f"Unable to remove volume [{vol_name}] because it "
                                         "does not exist")
            if not _hotpluggable(vol):
                raise errors.bad_request(f"Unable to remove volume [{vol_name}] because it is "
                                         "not hotpluggable")
        for pending in (vm.get("status") or {}).get("volumeRequests") or []:
            opts = pending.get("addVolumeOptions") or pending.get("removeVolumeOptions") or {}
            if opts.get("name") == vol_name:
                action = "add" if "addVolumeOptions" in pending else "remove"
                raise errors.kv_conflict("virtualmachine", name, f"{action} volume request for "
                                         f"volume [{vol_name}] already exists and is still "
                                         "being processed")
        if dry:
            return

        def apply(obj):
            obj.setdefault("status", {}).setdefault("volumeRequests", []).append(request)
            return obj
        self.store.mutate(kv.VM, ns, name, apply)

    # -- VMI actions -----------------------------------------------------------------------
    def _running_vmi(self, ns, name):
        vmi = self._fetch(kv.VMI, ns, name, "virtualmachineinstance")
        if kv.phase(vmi) != "Running":
            raise errors.kv_conflict("virtualmachineinstance", name, "VMI is not running")
        return vmi

    def _ok(self, h):
        h.send_bytes(200, b"", "application/json")

    def _set_vmi(self, ns, name, fn):
        def apply(obj):
            fn(obj)
            return obj
        self.store.mutate(kv.VMI, ns, name, apply)

    def vmi_pause(self, req, h, ns, name):
        body = req.json(default={}) or {}
        vmi = self._fetch(kv.VMI, ns, name, "virtualmachineinstance")
        if kv.phase(vmi) != "Running":
            raise errors.kv_conflict("virtualmachineinstance", name, "VM is not running")
        if (vmi.get("spec") or {}).get("livenessProbe"):
            raise errors.forbidden("Pausing VMIs with LivenessProbe is currently not supported")
        if kv.is_paused(vmi):
            raise errors.kv_conflict("virtualmachineinstance", name, "VMI is already paused")
        mig = (vmi.get("status") or {}).get("migrationState")
        if mig and not mig.get("completed") and not mig.get("failed"):
            raise errors.kv_conflict("virtualmachineinstance", name, f"Cannot pause VM '{name}' "
                                     "because it is currently being migrated")
        if not self._dry(body):
            self._set_vmi(ns, name, lambda o: meta.set_condition(
                o, "Paused", "True", "PausedByUser", "VMI was paused by user"))
        self._ok(h)

    def vmi_unpause(self, req, h, ns, name):
        body = req.json(default={}) or {}
        vmi = self._running_vmi(ns, name)
        if not kv.is_paused(vmi):
            raise errors.kv_conflict("virtualmachineinstance", name, "VMI is not paused")
        if not self._dry(body):
            self._set_vmi(ns, name, lambda o: meta.remove_condition(o, "Paused"))
        self._ok(h)

    def vmi_softreboot(self, req, h, ns, name):
        vmi = self._fetch(kv.VMI, ns, name, "virtualmachineinstance")
        if kv.phase(vmi) != "Running":
            raise errors.kv_conflict("virtualmachineinstance", name, "VM is not running")
        if kv.is_paused(vmi):
            raise errors.kv_conflict("virtualmachineinstance", name, "VMI is paused")
        acpi = ((((vmi.get("spec") or {}).get("domain") or {}).get("features") or {})
                .get("acpi") or {}).get("enabled", True)
        if not meta.get_condition(vmi, "AgentConnected") and acpi is False:
            raise errors.kv_conflict("virtualmachineinstance", name, "VMI neither have the "
                                     "agent connected nor the ACPI feature enabled")
        self.sim.guest_rebooted(vmi, soft=True)
        self._ok(h)

    def vmi_reset(self, req, h, ns, name):
        vmi = self._fetch(kv.VMI, ns, name, "virtualmachineinstance")
        if kv.phase(vmi) != "Running":
            raise errors.bad_request(f"Failed to reset non-running VMI with phase "
                                     f"{kv.phase(vmi)}: Unable to connect to "
                                     f"VirtualMachineInstance because phase is {kv.phase(vmi)} "
                                     "instead of Running")
        self.sim.guest_rebooted(vmi, soft=False)
        self._ok(h)

    def vmi_freeze(self, req, h, ns, name):
        self._running_vmi(ns, name)
        self._need_agent(ns, name)
        self._set_vmi(ns, name, lambda o: o["status"].__setitem__("fsFreezeStatus", "frozen"))
        self._ok(h)

    def vmi_unfreeze(self, req, h, ns, name):
        self._running_vmi(ns, name)
        self._need_agent(ns, name)
        self._set_vmi(ns, name, lambda o: o["status"].pop("fsFreezeStatus", None))
        self._ok(h)

    def _need_agent(self, ns, name):
        vmi = self._fetch(kv.VMI, ns, name, "virtualmachineinstance")
        if not meta.get_condition(vmi, "AgentConnected"):
            raise errors.kv_conflict("virtualmachineinstance", name,
                                     "VMI does not have guest agent connected")
        return vmi

    def vmi_guestosinfo(self, req, h, ns, name):
        self._running_vmi(ns, name)
        vmi = self._need_agent(ns, name)
        h.send_json(200, copy.deepcopy(self.sim.guest_os_info(vmi)))

    def vmi_addvolume(self, req, h, ns, name):
        body = self._volume_options(req, add=True)
        vmi = self._running_vmi(ns, name)
        names = {v.get("name") for v in (vmi.get("spec") or {}).get("volumes") or []}
        if body["name"] in names:
            raise errors.bad_request(f"Unable to add volume [{body['name']}] because volume "
                                     "with that name already exists")
        if not self._dry(body):
            self._set_vmi(ns, name, lambda o: add_volume_to_spec(o["spec"], body))
        self._ok(h)

    def vmi_removevolume(self, req, h, ns, name):
        body = self._volume_options(req, add=False)
        vmi = self._running_vmi(ns, name)
        vols = {v.get("name"): v for v in (vmi.get("spec") or {}).get("volumes") or []}
        if body["name"] not in vols:
            raise errors.bad_request(f"Unable to remove volume [{body['name']}] because it "
                                     "does not exist")
        if not _hotpluggable(vols[body["name"]]):
            raise errors.bad_request(f"Unable to remove volume [{body['name']}] because it is "
                                     "not hotpluggable")
        if not self._dry(body):
            self._set_vmi(ns, name, lambda o: remove_volume_from_spec(o["spec"], body["name"]))
        self._ok(h)

    def _console(self, req, h, ns, name, greeting):
        vmi = self._fetch(kv.VMI, ns, name, "virtualmachineinstance")
        if kv.phase(vmi) != "Running":
            raise errors.bad_request(f"Unable to connect to VirtualMachineInstance because "
                                     f"phase is {kv.phase(vmi) or 'unset'} instead of Running")
        if not websocket.is_upgrade(req.headers):
            raise errors.bad_request("this endpoint only speaks websocket: send 'Connection: "
                                     "Upgrade' and 'Upgrade: websocket' (subprotocol "
                                     "plain.kubevirt.io)")
        websocket.accept(h, greeting)

    def vmi_vnc(self, req, h, ns, name):
        self._console(req, h, ns, name, b"RFB 003.008\n")

    def vmi_console(self, req, h, ns, name):
        self._console(req, h, ns, name, None)


def _hotpluggable(volume):
    for key in ("persistentVolumeClaim", "dataVolume"):
        src = volume.get(key)
        if src and src.get("hotpluggable"):
            return True
    return False


def add_volume_to_spec(spec, opts):
    src = copy.deepcopy(opts["volumeSource"])
    for key in ("persistentVolumeClaim", "dataVolume"):
        if key in src:
            src[key]["hotpluggable"] = True
    spec.setdefault("volumes", []).append(dict(name=opts["name"], **src))
    disk = dict(copy.deepcopy(opts["disk"]), name=opts["name"])
    spec.setdefault("domain", {}).setdefault("devices", {}).setdefault("disks", []).append(disk)


def remove_volume_from_spec(spec, name):
    spec["volumes"] = [v for v in spec.get("volumes") or [] if v.get("name") != name]
    devices = spec.get("domain", {}).get("devices", {})
    devices["disks"] = [d for d in devices.get("disks") or [] if d.get("name") != name]
