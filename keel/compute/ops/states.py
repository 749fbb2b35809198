"""vm_state / task_state values the compute operations write (Nova's
strings: they drive the API's ``status`` and ``OS-EXT-STS:*`` fields)."""

# vm_states
ACTIVE = "active"
BUILDING = "building"
STOPPED = "stopped"
SOFT_DELETED = "soft-delete"
DELETED = "deleted"
ERROR = "error"

# task_states
SCHEDULING = "scheduling"
NETWORKING = "networking"
BLOCK_DEVICE_MAPPING = "block_device_mapping"
SPAWNING = "spawning"
DELETING = "deleting"
SOFT_DELETING = "soft-deleting"
RESTORING = "restoring"

# Task states a build leaves behind when its compute dies mid-way.
BUILD_TASK_STATES = (SCHEDULING, NETWORKING, BLOCK_DEVICE_MAPPING, SPAWNING)
