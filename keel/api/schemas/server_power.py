"""Bodies of the power, pause, suspend, rescue, lock, console-output and
remote-console requests (Nova's schemas, per microversion)."""


def _any_value(key):
    """``{"<key>": <anything>}`` and nothing else."""
    return {
        "type": "object",
        "properties": {key: {}},
        "required": [key],
        "additionalProperties": False,
    }


start_server = _any_value("os-start")
stop_server = _any_value("os-stop")
pause = _any_value("pause")
unpause = _any_value("unpause")
suspend = _any_value("suspend")
resume = _any_value("resume")
unrescue = _any_value("unrescue")
lock = _any_value("lock")
unlock = _any_value("unlock")

reboot = {
    "type": "object",
    "properties": {
        "reboot": {
            "type": "object",
            "properties": {
                "type": {"type": "string",
                         "enum": ["HARD", "Hard", "hard",
                                  "SOFT", "Soft", "soft"]},
            },
            "required": ["type"],
            "additionalProperties": False,
        },
    },
    "required": ["reboot"],
    "additionalProperties": False,
}

trigger_crash_dump = {
    "type": "object",
    "properties": {"trigger_crash_dump": {"type": "null"}},
    "required": ["trigger_crash_dump"],
    "additionalProperties": False,
}

rescue = {
    "type": "object",
    "properties": {
        "rescue": {
            "type": ["object", "null"],
            "properties": {
                "adminPass": {"type": "string"},
                "rescue_image_ref": {"type": "string", "format": "uuid"},
            },
            "additionalProperties": False,
        },
    },
    "required": ["rescue"],
    "additionalProperties": False,
}

# 2.73: an optional reason, 1 to 255 characters.
lock_v273 = {
    "type": "object",
    "properties": {
        "lock": {
            "type": ["object", "null"],
            "properties": {
                "locked_reason": {"type": "string", "minLength": 1,
                                  "maxLength": 255},
            },
            "additionalProperties": False,
        },
    },
    "required": ["lock"],
    "additionalProperties": False,
}

get_console_output = {
    "type": "object",
    "properties": {
        "os-getConsoleOutput": {
            "type": "object",
            "properties": {
                # An integer, or a string of one (Nova accepts both).
                "length": {"type": ["integer", "string", "null"],
                           "pattern": "^-?[0-9]+$", "minimum": -1},
            },
            "additionalProperties": False,
        },
    },
    "required": ["os-getConsoleOutput"],
    "additionalProperties": False,
}


def _remote_console(protocols, types):
    return {
        "type": "object",
        "properties": {
            "remote_console": {
                "type": "object",
                "properties": {
                    "protocol": {"type": "string", "enum": protocols},
                    "type": {"type": "string", "enum": types},
                },
                "required": ["protocol", "type"],
                "additionalProperties": False,
            },
        },
        "required": ["remote_console"],
        "additionalProperties": False,
    }


_V26_TYPES = ["novnc", "xvpvnc", "spice-html5", "serial", "rdp-html5"]
create_console_v26 = _remote_console(["vnc", "spice", "serial", "rdp"],
                                     _V26_TYPES)
create_console_v28 = _remote_console(
    ["vnc", "spice", "serial", "rdp", "mks"], _V26_TYPES + ["webmks"])
create_console_v299 = _remote_console(
    ["vnc", "spice", "serial", "rdp", "mks"],
    _V26_TYPES + ["webmks", "spice-direct"])

get_vnc_console = {
    "type": "object",
    "properties": {
        "os-getVNCConsole": {
            "type": "object",
            "properties": {"type": {"type": "string",
                                    "enum": ["novnc", "xvpvnc"]}},
            "required": ["type"],
            "additionalProperties": False,
        },
    },
    "required": ["os-getVNCConsole"],
    "additionalProperties": False,
}

get_serial_console = {
    "type": "object",
    "properties": {
        "os-getSerialConsole": {
            "type": "object",
            "properties": {"type": {"type": "string", "enum": ["serial"]}},
            "required": ["type"],
            "additionalProperties": False,
        },
    },
    "required": ["os-getSerialConsole"],
    "additionalProperties": False,
}

get_spice_console = {
    "type": "object",
    "properties": {
        "os-getSPICEConsole": {
            "type": "object",
            "properties": {"type": {"type": "string",
                                    "enum": ["spice-html5"]}},
            "required": ["type"],
            "additionalProperties": False,
        },
    },
    "required": ["os-getSPICEConsole"],
    "additionalProperties": False,
}

UPSTREAM = {
    "start_server": "servers.start_server",
    "stop_server": "servers.stop_server",
    "reboot": "servers.reboot",
    "trigger_crash_dump": "servers.trigger_crash_dump",
    "pause": "pause_server.pause",
    "unpause": "pause_server.unpause",
    "suspend": "suspend_server.suspend",
    "resume": "suspend_server.resume",
    "rescue": "rescue.rescue",
    "unrescue": "rescue.unrescue",
    "lock": "lock_server.lock",
    "lock_v273": "lock_server.lock_v273",
    "unlock": "lock_server.unlock",
    "get_console_output": "console_output.get_console_output",
    "create_console_v26": "remote_consoles.create_v26",
    "create_console_v28": "remote_consoles.create_v28",
    "create_console_v299": "remote_consoles.create_v299",
    "get_vnc_console": "remote_consoles.get_vnc_console",
    "get_serial_console": "remote_consoles.get_serial_console",
    "get_spice_console": "remote_consoles.get_spice_console",
}
