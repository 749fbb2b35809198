"""Bodies of the evacuate server action (Nova's os-evacuate schemas):
onSharedStorage required until 2.13 and gone from 2.14; force from 2.29
to 2.67; 2.95 (evacuated servers end stopped) adds no field."""
from keel.api.schemas import services

_host = {"type": "string", "minLength": 1, "maxLength": 255,
         "pattern": "^[a-zA-Z0-9-._]*$"}


def _evacuate(required=(), **extra):
    props = {"host": _host, "adminPass": {"type": "string"}}
    props.update(extra)
    inner = {"type": "object", "additionalProperties": False,
             "properties": props}
    if required:
        inner["required"] = list(required)
    return {"type": "object", "additionalProperties": False,
            "required": ["evacuate"], "properties": {"evacuate": inner}}


evacuate = _evacuate(("onSharedStorage",), onSharedStorage=services.boolean)
evacuate_v214 = _evacuate()
evacuate_v229 = _evacuate(force=services.boolean)
evacuate_v268 = _evacuate()
evacuate_v295 = _evacuate()

BY_VERSION = [
    (evacuate, "2.1", "2.13"), (evacuate_v214, "2.14", "2.28"),
    (evacuate_v229, "2.29", "2.67"), (evacuate_v268, "2.68", "2.94"),
    (evacuate_v295, "2.95", None),
]

UPSTREAM = {name: f"evacuate.{name}" for name in (
    "evacuate", "evacuate_v214", "evacuate_v229", "evacuate_v268",
    "evacuate_v295")}
