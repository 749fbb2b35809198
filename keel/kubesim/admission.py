"""What KubeVirt's validating webhooks refuse on create. Mixed into KubeSim."""
from . import errors
from . import kubevirt as kv
from . import meta
from . import quantity


class AdmissionMixin:
    def admit(self, rt, ns, body):
        if rt is kv.VMIM or rt.storage == kv.VMIM.storage:
            self.admit_migration(ns, body.get("spec") or {})
        elif rt.storage == kv.VM.storage:
            spec = body.get("spec") or {}
            if "running" in spec and "runStrategy" in spec:
                raise _denied("vm", "Running and RunStrategy are mutually exclusive. Note "
                              "that Running is deprecated, please use RunStrategy instead")
            if not isinstance(spec.get("template"), dict):
                raise _denied("vm", "spec.template: Required value: missing template")
            allowed = ("Always", "RerunOnFailure", "Manual", "Halted", "Once",
                       "WaitAsReceiver")
            if "runStrategy" in spec and spec["runStrategy"] not in allowed:
                raise _denied("vm", f"spec.runStrategy: Unsupported value: "
                              f"\"{spec['runStrategy']}\": supported values: "
                              + ", ".join(f'"{a}"' for a in allowed))

    def admit_migration(self, ns, spec):
        name = spec.get("vmiName")
        vmi = self.store.raw(kv.VMI, ns, name) if name else None
        if vmi is None:
            raise _denied("migration-create", f"the VMI \"{ns}/{name}\" does not exist")
        if kv.is_final(vmi):
            raise _denied("migration-create", "Cannot migrate VMI in finalized state.")
        if kv.phase(vmi) != "Running":
            raise _denied("migration-create", "Cannot migrate VMI which is not running.")
        cond = meta.get_condition(vmi, "LiveMigratable")
        if cond and cond.get("status") == "False":
            raise _denied("migration-create", f"Cannot migrate VMI, Reason: {cond.get('reason')}"
                          f", Message: {cond.get('message')}")
        items, _ = self.store.items(kv.VMIM, ns)
        for m in items:
            if (m.get("spec") or {}).get("vmiName") == name and \
                    (m.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
                raise _denied("migration-create", f"in-flight migration detected. Active "
                              f"migration job ({m['metadata']['uid']}) is currently already "
                              f"in progress for VMI {name}.")


    def admit_update(self, rt, old, new):
        """Update validation the apiserver applies to claims: a bound PVC's spec is
        immutable except for a storage request that grows (volume expansion)."""
        if rt is not kv.PVC or not isinstance(new, dict):
            return new
        ospec, nspec = old.get("spec") or {}, new.get("spec") or {}
        want = ((nspec.get("resources") or {}).get("requests") or {}).get("storage")
        had = ((ospec.get("resources") or {}).get("requests") or {}).get("storage")
        name = old["metadata"]["name"]
        if want and had and quantity.parse(want) < quantity.parse(had):
            raise errors.invalid(rt, name, [("spec.resources.requests.storage",
                                             "Forbidden: field can not be less than "
                                             "previous value")])
        if want and had and quantity.parse(want) > quantity.parse(had) and \
                ospec.get("storageClassName") == "":
            # The PersistentVolumeClaimResize admission plugin: growing needs a class
            # that allows expansion (every class of the simulator does), so a claim
            # statically bound without one cannot grow.
            raise errors.forbidden("only dynamically provisioned pvc can be resized and the "
                                   "storageclass that provisions the pvc must support resize")
        strip = ("resources", "volumeName") if not ospec.get("volumeName") else ("resources",)
        if {k: v for k, v in ospec.items() if k not in strip} != \
                {k: v for k, v in nspec.items() if k not in strip}:
            raise errors.invalid(rt, name, [("spec", "Forbidden: spec is immutable after "
                                             "creation except resources.requests for bound "
                                             "claims")])
        return new


def _denied(webhook, message):
    return errors.ApiError(400, "BadRequest", f'admission webhook "{webhook}-validator.'
                           f'kubevirt.io" denied the request: {message}')

