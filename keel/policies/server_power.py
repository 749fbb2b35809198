"""Pause, suspend, rescue, lock, console output and remote consoles (Nova's
os-pause-server, os-suspend-server, os-rescue, os-lock-server,
os-console-output and os-remote-consoles rules; start, stop, reboot and
trigger_crash_dump are servers:* rules in keel.policies.servers)."""
from keel.policies import base

PAUSE = "os_compute_api:os-pause-server:%s"
SUSPEND = "os_compute_api:os-suspend-server:%s"
RESCUE = "os_compute_api:os-rescue"
UNRESCUE = "os_compute_api:os-unrescue"
LOCK = "os_compute_api:os-lock-server:%s"
CONSOLE_OUTPUT = "os_compute_api:os-console-output"
REMOTE_CONSOLES = "os_compute_api:os-remote-consoles"

_ACTION = "/servers/{server_id}/action (%s)"
M, A = base.PROJECT_MEMBER_OR_ADMIN, base.ADMIN

rules = [
    base.rule(PAUSE % "pause", M, "Pause a server",
              [("POST", _ACTION % "pause")]),
    base.rule(PAUSE % "unpause", M, "Unpause a paused server",
              [("POST", _ACTION % "unpause")]),
    base.rule(SUSPEND % "suspend", M, "Suspend a server",
              [("POST", _ACTION % "suspend")]),
    base.rule(SUSPEND % "resume", M, "Resume a suspended server",
              [("POST", _ACTION % "resume")]),
    base.rule(RESCUE, M, "Rescue a server", [("POST", _ACTION % "rescue")]),
    base.rule(UNRESCUE, M, "Unrescue a server",
              [("POST", _ACTION % "unrescue")]),
    base.rule(LOCK % "lock", M, "Lock a server",
              [("POST", _ACTION % "lock")]),
    base.rule(LOCK % "unlock", M, "Unlock a server",
              [("POST", _ACTION % "unlock")]),
    base.rule(LOCK % "unlock:unlock_override", A, "Unlock a server "
              "locked by a different user", [("POST", _ACTION % "unlock")]),
    base.rule(CONSOLE_OUTPUT, M, "Show console output for a server",
              [("POST", _ACTION % "os-getConsoleOutput")]),
    base.rule(REMOTE_CONSOLES, M, "Generate a URL to a server's remote "
              "console", [("POST", "/servers/{server_id}/remote-consoles")]),
]


def list_rules():
    return rules
