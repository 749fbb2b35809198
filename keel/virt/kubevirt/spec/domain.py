"""Flavor extra specs and image properties -> ``spec.template.spec.domain``
(design note section 3).  Everything KubeVirt cannot express raises
``KubeVirtUnsupported`` before any object is created."""
from keel.virt.kubevirt.spec import KubeVirtUnsupported
from keel.virt.kubevirt.spec import bool_value
from keel.virt.kubevirt.spec import extra_spec
from keel.virt.kubevirt.spec import image_prop

_PAGE_SIZES = {"2mb": "2Mi", "2048": "2Mi", "2mi": "2Mi", "2048kb": "2Mi",
               "large": "2Mi", "1gb": "1Gi", "1gi": "1Gi", "1048576": "1Gi",
               "1048576kb": "1Gi"}
_WATCHDOG_ACTIONS = {"poweroff": "poweroff", "reset": "reset"}


def _int(value, prop):
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise KubeVirtUnsupported(prop=prop, value=value,
                                  reason="not an integer")
    if number < 1:
        raise KubeVirtUnsupported(prop=prop, value=value,
                                  reason="must be at least 1")
    return number


def cpu_topology(flavor, props):
    """(sockets, cores, threads) whose product is the flavor's vcpus.

    Unset dimensions are filled as Nova does by default: everything left
    over goes to sockets, cores and threads default to 1."""
    vcpus = int(flavor.vcpus)
    given = {}
    for dim in ("sockets", "cores", "threads"):
        value = extra_spec(flavor, "hw:cpu_" + dim, props, "hw_cpu_" + dim)
        if value is not None:
            given[dim] = _int(value, "hw:cpu_" + dim)
    known = 1
    for value in given.values():
        known *= value
    missing = [d for d in ("sockets", "cores", "threads") if d not in given]
    if vcpus % known:
        raise KubeVirtUnsupported(
            prop="hw:cpu_" + "/".join(sorted(given)), value=given,
            reason="the topology does not divide the flavor's %d vCPUs"
                   % vcpus)
    rest = vcpus // known
    for dim in missing:
        given[dim] = rest if dim == missing[0] else 1
    if not missing and known != vcpus:
        raise KubeVirtUnsupported(
            prop="hw:cpu_sockets/cores/threads", value=given,
            reason="their product must equal the flavor's %d vCPUs" % vcpus)
    max_sockets = extra_spec(flavor, "hw:cpu_max_sockets", props,
                             "hw_cpu_max_sockets")
    if max_sockets is not None and given["sockets"] > _int(
            max_sockets, "hw:cpu_max_sockets"):
        raise KubeVirtUnsupported(
            prop="hw:cpu_max_sockets", value=max_sockets,
            reason="the topology needs %d sockets" % given["sockets"])
    return given["sockets"], given["cores"], given["threads"]


def _cpu(flavor, props):
    sockets, cores, threads = cpu_topology(flavor, props)
    cpu = {"sockets": sockets, "cores": cores, "threads": threads}
    policy = extra_spec(flavor, "hw:cpu_policy", props, "hw_cpu_policy")
    dedicated = False
    if policy not in (None, "shared"):
        if policy != "dedicated":
            raise KubeVirtUnsupported(
                prop="hw:cpu_policy", value=policy,
                reason="only 'shared' and 'dedicated' exist in KubeVirt")
        dedicated = True
        cpu["dedicatedCpuPlacement"] = True
    thread_policy = extra_spec(flavor, "hw:cpu_thread_policy", props,
                               "hw_cpu_thread_policy")
    if thread_policy not in (None, "prefer"):
        if not dedicated:
            raise KubeVirtUnsupported(
                prop="hw:cpu_thread_policy", value=thread_policy,
                reason="a thread policy needs hw:cpu_policy=dedicated")
        if thread_policy == "require":
            raise KubeVirtUnsupported(
                prop="hw:cpu_thread_policy", value=thread_policy,
                reason="KubeVirt cannot require sibling threads")
    emulator = extra_spec(flavor, "hw:emulator_threads_policy")
    if emulator not in (None, "share"):
        if emulator != "isolate" or not dedicated:
            raise KubeVirtUnsupported(
                prop="hw:emulator_threads_policy", value=emulator,
                reason="only 'isolate' with dedicated CPUs is supported")
        cpu["isolateEmulatorThread"] = True
    model = extra_spec(flavor, "hw:cpu_model")
    if model:
        cpu["model"] = model
    realtime = extra_spec(flavor, "hw:cpu_realtime")
    if realtime is not None and bool_value(realtime):
        mask = extra_spec(flavor, "hw:cpu_realtime_mask", props,
                          "hw_cpu_realtime_mask")
        if not dedicated:
            raise KubeVirtUnsupported(
                prop="hw:cpu_realtime", value=realtime,
                reason="realtime vCPUs need hw:cpu_policy=dedicated")
        cpu["realtime"] = {"mask": mask} if mask else {}
    numa = extra_spec(flavor, "hw:numa_nodes", props, "hw_numa_nodes")
    if numa is not None and _int(numa, "hw:numa_nodes") > 1:
        raise KubeVirtUnsupported(
            prop="hw:numa_nodes", value=numa,
            reason="KubeVirt cannot split a guest into chosen NUMA nodes")
    return cpu, dedicated


def _memory(flavor, props):
    ram = int(flavor.memory_mb)
    memory = {"guest": "%dMi" % ram}
    page = extra_spec(flavor, "hw:mem_page_size", props, "hw_mem_page_size")
    if page is not None and str(page).lower() not in ("small", "any"):
        size = _PAGE_SIZES.get(str(page).lower())
        if size is None:
            raise KubeVirtUnsupported(
                prop="hw:mem_page_size", value=page,
                reason="use small, any, large, 2MB or 1GB")
        if size == "1Gi" and ram % 1024:
            raise KubeVirtUnsupported(
                prop="hw:mem_page_size", value=page,
                reason="the flavor's %d MiB is not a whole number of 1 GiB "
                       "pages" % ram)
        if size == "2Mi" and ram % 2:
            raise KubeVirtUnsupported(
                prop="hw:mem_page_size", value=page,
                reason="the flavor's %d MiB is not a whole number of 2 MiB "
                       "pages" % ram)
        memory["hugepages"] = {"pageSize": size}
    return memory


def _firmware(instance, flavor, props):
    firmware = {"uuid": instance.uuid, "serial": instance.uuid}
    features = {}
    fw_type = extra_spec(flavor, "hw:firmware_type", props,
                         "hw_firmware_type")
    secure = extra_spec(flavor, "os:secure_boot", props, "os_secure_boot")
    if fw_type not in (None, "bios", "uefi"):
        raise KubeVirtUnsupported(prop="hw_firmware_type", value=fw_type,
                                  reason="use bios or uefi")
    if secure == "required" and fw_type != "uefi":
        raise KubeVirtUnsupported(
            prop="os_secure_boot", value=secure,
            reason="secure boot needs hw_firmware_type=uefi")
    if fw_type == "uefi":
        on = secure in ("required", "optional")
        firmware["bootloader"] = {"efi": {"secureBoot": on}}
        if on:
            features["smm"] = {"enabled": True}
    elif fw_type == "bios":
        firmware["bootloader"] = {"bios": {}}
    return firmware, features


def _watchdog(flavor, props):
    action = extra_spec(flavor, "hw:watchdog_action", props,
                        "hw_watchdog_action")
    if action in (None, "disabled", "none"):
        return None
    if action not in _WATCHDOG_ACTIONS:
        raise KubeVirtUnsupported(
            prop="hw_watchdog_action", value=action,
            reason="KubeVirt's watchdog can only poweroff or reset")
    return {"name": "watchdog",
            "i6300esb": {"action": _WATCHDOG_ACTIONS[action]}}


def render_domain(instance, flavor, props, disks, interfaces):
    """The ``domain`` of the VM template, and whether CPUs are dedicated."""
    if extra_spec(flavor, "pci_passthrough:alias"):
        raise KubeVirtUnsupported(
            prop="pci_passthrough:alias",
            value=extra_spec(flavor, "pci_passthrough:alias"),
            reason="PCI aliases are not mapped to host devices yet")
    cpu, dedicated = _cpu(flavor, props)
    memory = _memory(flavor, props)
    firmware, features = _firmware(instance, flavor, props)
    requests = {"memory": memory["guest"]}
    resources = {"requests": requests}
    if dedicated:
        # Guaranteed QoS: the static CPU manager pins only such pods.
        requests["cpu"] = str(int(flavor.vcpus))
        resources["limits"] = dict(requests)
    devices = {"disks": disks, "interfaces": interfaces,
               "autoattachSerialConsole": True, "logSerialConsole": True}
    watchdog = _watchdog(flavor, props)
    if watchdog:
        devices["watchdog"] = watchdog
    multiqueue = extra_spec(flavor, "hw:vif_multiqueue_enabled", props,
                            "hw_vif_multiqueue_enabled")
    if multiqueue is not None and bool_value(multiqueue):
        devices["networkInterfaceMultiqueue"] = True
    domain = {"cpu": cpu, "memory": memory, "resources": resources,
              "firmware": firmware, "devices": devices}
    if features:
        domain["features"] = features
    machine = extra_spec(flavor, "hw:machine_type", props, "hw_machine_type")
    if machine:
        domain["machine"] = {"type": machine}
    return domain, dedicated


def disk_bus(props):
    bus = image_prop(props, "hw_disk_bus", "virtio")
    if bus not in ("virtio", "scsi", "sata", "usb"):
        raise KubeVirtUnsupported(prop="hw_disk_bus", value=bus,
                                  reason="use virtio, scsi, sata or usb")
    return bus
