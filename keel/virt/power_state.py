"""Hypervisor power states, with Nova's integer values (they are stored in
``instances.power_state`` and shown as ``OS-EXT-STS:power_state``)."""

NOSTATE = 0x00
RUNNING = 0x01
PAUSED = 0x03
SHUTDOWN = 0x04   # the guest is off (Nova calls a stopped guest SHUTDOWN)
CRASHED = 0x06
SUSPENDED = 0x07

STATE_MAP = {
    NOSTATE: "pending",
    RUNNING: "running",
    PAUSED: "paused",
    SHUTDOWN: "shutdown",
    CRASHED: "crashed",
    SUSPENDED: "suspended",
}
