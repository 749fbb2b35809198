"""The API ``status`` of a server from its (vm_state, task_state), and the
reverse used by the ``?status=`` list filter (server-states.md)."""

_REBOOT = ("rebooting", "reboot_pending", "reboot_started")
_HARD_REBOOT = ("rebooting_hard", "reboot_pending_hard",
                "reboot_started_hard")
_REBUILD = ("rebuilding", "rebuild_block_device_mapping", "rebuild_spawning")
_RESIZE = ("resize_prep", "resize_migrating", "resize_migrated",
           "resize_finish")


def _rows(statuses):
    out = {}
    for status, tasks in statuses:
        for task in tasks:
            out[task] = status
    return out


# vm_state -> {"default": status, task_state: status}
STATE_MAP = {
    "active": dict(_rows([("REBOOT", _REBOOT),
                          ("HARD_REBOOT", _HARD_REBOOT),
                          ("PASSWORD", ("updating_password",)),
                          ("REBUILD", _REBUILD),
                          ("MIGRATING", ("migrating",)),
                          ("RESIZE", _RESIZE)]), default="ACTIVE"),
    "building": {"default": "BUILD"},
    "stopped": dict(_rows([("RESIZE", _RESIZE), ("REBUILD", _REBUILD)]),
                    default="SHUTOFF"),
    "resized": {"default": "VERIFY_RESIZE",
                "resize_reverting": "REVERT_RESIZE"},
    "paused": {"default": "PAUSED", "migrating": "MIGRATING"},
    "suspended": {"default": "SUSPENDED"},
    "rescued": {"default": "RESCUE"},
    "error": dict(_rows([("REBUILD", _REBUILD)]), default="ERROR"),
    "deleted": {"default": "DELETED"},
    "soft-delete": {"default": "SOFT_DELETED"},
    "shelved": {"default": "SHELVED"},
    "shelved_offloaded": {"default": "SHELVED_OFFLOADED"},
}

# Statuses whose server body carries ``progress``.
PROGRESS_STATUSES = ("ACTIVE", "BUILD", "REBUILD", "RESIZE", "VERIFY_RESIZE",
                     "MIGRATING")


def status_from_state(vm_state, task_state="default"):
    """The API status; ``UNKNOWN`` for a vm_state with no entry."""
    task_map = STATE_MAP.get(vm_state)
    if task_map is None:
        return "UNKNOWN"
    return task_map.get(task_state, task_map["default"])


def server_status(instance):
    if getattr(instance, "deleted", False) is True:
        return "DELETED"
    return status_from_state(instance.vm_state, instance.task_state)


def states_from_status(status):
    """``(vm_states, task_states)`` for the ``?status=`` filter, as Nova:
    every (vm_state, task_state) row showing ``status``; when a vm_state's
    default row matches, ``task_states`` is None (no task filter). An
    unknown status gives no vm_states (the list is empty)."""
    status = (status or "").upper()
    vm_states, task_states = set(), set()
    for vm_state, task_map in STATE_MAP.items():
        for task, value in task_map.items():
            if value == status:
                vm_states.add(vm_state)
                task_states.add(task)
    if "default" in task_states:
        return sorted(vm_states), None
    return sorted(vm_states), sorted(task_states)
