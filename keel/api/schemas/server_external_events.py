"""os-server-external-events bodies: the accepted event names grow with
the microversions (2.51 volume-extended, 2.76 power-update, 2.82
accelerator-request-bound, 2.93 volume-reimaged)."""

_NAMES = ["network-changed", "network-vif-plugged", "network-vif-unplugged",
          "network-vif-deleted"]


def _create(names):
    return {
        "type": "object",
        "properties": {"events": {
            "type": "array", "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "server_uuid": {"type": "string", "format": "uuid"},
                    "name": {"type": "string", "enum": names},
                    "status": {"type": "string",
                               "enum": ["failed", "completed",
                                        "in-progress"]},
                    "tag": {"type": "string", "maxLength": 255},
                },
                "required": ["server_uuid", "name"],
                "additionalProperties": False}}},
        "required": ["events"],
        "additionalProperties": False,
    }


create = _create(_NAMES)
create_v251 = _create(_NAMES + ["volume-extended"])
create_v276 = _create(_NAMES + ["volume-extended", "power-update"])
create_v282 = _create(_NAMES + ["volume-extended", "power-update",
                                "accelerator-request-bound"])
create_v293 = _create(_NAMES + ["volume-extended", "power-update",
                                "accelerator-request-bound",
                                "volume-reimaged"])

UPSTREAM = {
    "create": "server_external_events.create",
    "create_v251": "server_external_events.create_v251",
    "create_v276": "server_external_events.create_v276",
    "create_v282": "server_external_events.create_v282",
    "create_v293": "server_external_events.create_v293",
}
