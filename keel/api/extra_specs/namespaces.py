"""Extra specs outside ``hw*``: quotas, accelerators, PCI aliases,
Placement resources and traits, scheduler filters' namespaces, ``os:``."""
from keel.api.extra_specs.base import Spec

_GROUP = {"group": r"([a-zA-Z0-9_-]{1,64})?"}
_ANY = {"key": r".+"}


def _quota():
    specs = [Spec(f"quota:cpu_{name}", value_type=int, minimum=0)
             for name in ("shares", "period", "quota")]
    specs.append(Spec("quota:cpu_limit", value_type=int, minimum=0))
    specs.append(Spec("quota:cpu_reservation", value_type=int, minimum=0))
    for device in ("disk", "vif"):
        for name in ("read_bytes_sec", "read_iops_sec", "write_bytes_sec",
                     "write_iops_sec", "total_bytes_sec", "total_iops_sec",
                     "inbound_average", "inbound_peak", "inbound_burst",
                     "outbound_average", "outbound_peak", "outbound_burst"):
            if device == "disk" and name.startswith(("in", "out")):
                continue
            if device == "vif" and not name.startswith(("in", "out")):
                continue
            specs.append(Spec(f"quota:{device}_{name}", value_type=int,
                              minimum=0))
    specs.append(Spec("quota:memory_limit", value_type=int, minimum=0))
    specs.append(Spec("quota:memory_reservation", value_type=int,
                      minimum=0))
    return specs


def register():
    return _quota() + [
        Spec("accel:device_profile", pattern=r"[^\s]+"),
        Spec("pci_passthrough:alias",
             pattern=r"[^:]+:\d+(,\s*[^:]+:\d+)*"),
        Spec("resources{group}:{resource_class}", value_type=int,
             minimum=0, parameters=dict(
                 _GROUP, resource_class=r"[A-Z0-9_]+")),
        Spec("trait{group}:{trait}",
             enum=["required", "forbidden"], parameters=dict(
                 _GROUP, trait=r"[A-Z0-9_]+")),
        Spec("group_policy", enum=["isolate", "none"]),
        Spec("aggregate_instance_extra_specs:{key}", pattern=r".*",
             parameters=_ANY),
        Spec("capabilities:{key}", pattern=r".*", parameters=_ANY),
        Spec("os:secure_boot", enum=["required", "disabled", "optional"]),
        Spec("vmware:hw_version", pattern=r".+"),
        Spec("vmware:storage_policy", pattern=r".+"),
        Spec("hide_hypervisor_id", value_type=bool),
    ]
