"""Bodies and query strings of /servers/{id}/os-volume_attachments
(Nova's volume_attachments schemas)."""
import copy

from keel.api.schemas import parameter_types as types

_BOOLS = [True, "True", "TRUE", "true", "1", "ON", "On", "on", "YES", "Yes",
          "yes", False, "False", "FALSE", "false", "0", "OFF", "Off", "off",
          "NO", "No", "no"]
boolean = {"type": ["boolean", "string"], "enum": _BOOLS}
uuid = {"type": "string", "format": "uuid"}
device = {"type": ["string", "null"],
          "pattern": "(^/dev/x{0,1}[a-z]{0,1}d{0,1})([a-z]+)[0-9]*$"}
tag = {"type": "string", "minLength": 1, "maxLength": 60,
       "pattern": "^[^,/]*$"}


def _body(properties, required=("volumeId",)):
    return {"type": "object",
            "properties": {"volumeAttachment": {
                "type": "object", "properties": properties,
                "required": list(required), "additionalProperties": False}},
            "required": ["volumeAttachment"], "additionalProperties": False}


create = _body({"volumeId": uuid, "device": device})
create_v249 = _body({"volumeId": uuid, "device": device, "tag": tag})
create_v279 = _body({"volumeId": uuid, "device": device, "tag": tag,
                     "delete_on_termination": boolean})
update = _body({"volumeId": uuid})
update_v285 = _body({"volumeId": uuid, "device": device, "tag": tag,
                     "delete_on_termination": boolean, "id": uuid,
                     "serverId": uuid})

_paging = types.multi_params(types.non_negative_integer)
index_query = types.query({"limit": _paging, "offset": _paging})
index_query_v275 = copy.deepcopy(types.query(
    {"limit": _paging, "offset": _paging}, additional=False))
show_query = types.query()
