"""Bodies of createImage and createBackup (Nova's schemas)."""
from keel.api.schemas import parameter_types

# Image metadata: string keys and values, as Nova's image_metadata type.
_metadata = {
    "type": "object",
    "patternProperties": {
        "^[a-zA-Z0-9-_:. ]{1,255}$": {"type": "string", "maxLength": 255},
    },
    "additionalProperties": False,
}

create_image = {
    "type": "object",
    "properties": {
        "createImage": {
            "type": "object",
            "properties": {
                "name": parameter_types.name,
                "metadata": _metadata,
            },
            "required": ["name"],
            "additionalProperties": False,
        },
    },
    "required": ["createImage"],
    "additionalProperties": False,
}

create_backup = {
    "type": "object",
    "properties": {
        "createBackup": {
            "type": "object",
            "properties": {
                "name": parameter_types.name,
                "backup_type": {"type": "string"},
                "rotation": parameter_types.non_negative_integer,
                "metadata": _metadata,
            },
            "required": ["name", "backup_type", "rotation"],
            "additionalProperties": False,
        },
    },
    "required": ["createBackup"],
    "additionalProperties": False,
}
