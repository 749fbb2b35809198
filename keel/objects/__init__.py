"""Keel's versioned objects (Nova's names, fields and versions).

Call ``register_all()`` once; afterwards every object class is reachable as
``keel.objects.<Name>`` (the newest registered version of that name).
"""
import importlib

# One module per object family; importing a module registers its classes.
_MODULES = (
    "aggregate", "block_device", "build_request", "cell_mapping",
    "compute_node", "console_auth_token", "ec2", "external_event", "flavor",
    "host_mapping", "hv_spec", "image_meta", "instance", "instance_action",
    "instance_fault", "instance_group", "instance_info_cache", "instance_list",
    "instance_mapping", "instance_numa", "instance_pci_requests", "keypair",
    "migration",
    "migration_context", "network_metadata", "network_request", "numa",
    "pci_device", "pci_device_pool", "request_spec", "resource",
    "security_group", "selection", "service", "tag", "trusted_certs",
    "vcpu_model", "virt_cpu_topology", "virt_device_metadata",
    "virtual_interface",
    "diagnostics",
    "task_log",
    "share_mapping",
)


def register_all():
    for name in _MODULES:
        importlib.import_module("keel.objects." + name)
