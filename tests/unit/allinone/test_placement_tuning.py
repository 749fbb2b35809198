"""Placement's request validation through the all-in-one's schema cache
gives the same answers as jsonschema.validate."""
from unittest import mock

import jsonschema
import pytest

from keel.allinone import placement_tuning

SCHEMA = {
    "type": "object",
    "properties": {"uuid": {"type": "string", "format": "uuid"},
                   "n": {"type": "integer", "minimum": 1}},
    "required": ["n"],
    "additionalProperties": False,
}


@pytest.fixture
def shim():
    return placement_tuning._SchemaCheckedOnce(jsonschema)


def _error(validate, instance, schema=SCHEMA):
    try:
        validate(instance, schema,
                 format_checker=jsonschema.FormatChecker())
    except jsonschema.ValidationError as exc:
        return exc.message
    return None


@pytest.mark.parametrize("instance", [
    {"n": 2}, {"n": 0}, {}, {"n": 1, "x": 1}, {"n": "a"}, [1]])
def test_same_outcome_as_jsonschema(shim, instance):
    assert _error(shim.validate, instance) == \
        _error(jsonschema.validate, instance)


def test_schema_checked_once(shim):
    validator = jsonschema.validators.validator_for(SCHEMA)
    with mock.patch.object(validator, "check_schema",
                           wraps=validator.check_schema) as check:
        for _ in range(3):
            shim.validate({"n": 1}, SCHEMA)
    assert check.call_count == 1


def test_invalid_schema_still_fails(shim):
    bad = {"type": "no-such-type"}
    with pytest.raises(jsonschema.SchemaError):
        shim.validate({}, bad)
    with pytest.raises(jsonschema.SchemaError):   # and is not remembered
        shim.validate({}, bad)


def test_installed_in_placement_util_once():
    from placement import util
    original = util.jsonschema
    try:
        placement_tuning._check_schemas_once()
        placement_tuning._check_schemas_once()
        assert isinstance(util.jsonschema, placement_tuning._SchemaCheckedOnce)
        assert util.jsonschema._jsonschema is jsonschema
        assert util.jsonschema.ValidationError is jsonschema.ValidationError
    finally:
        util.jsonschema = original
