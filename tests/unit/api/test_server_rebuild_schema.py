"""The rebuild bodies: what each microversion accepts, as Nova."""
import jsonschema
import pytest

from keel.api import validation
from keel.api.schemas import server_rebuild as schema

IMAGE = "70a599e0-31e7-49b7-b260-868f441e862b"


def _ok(body_schema, body):
    try:
        jsonschema.Draft4Validator(
            body_schema, format_checker=validation.FORMAT_CHECKER
        ).validate(body)
    except jsonschema.ValidationError:
        return False
    return True


@pytest.mark.parametrize("field,value,first", [
    ("description", "d", schema.rebuild_v219),
    ("key_name", None, schema.rebuild_v254),
    ("user_data", "ZWNobw==", schema.rebuild_v257),
    ("trusted_image_certificates", ["a"], schema.rebuild_v263),
    ("hostname", "host-1", schema.rebuild_v290),
])
def test_fields_appear_at_their_microversion(field, value, first):
    body = {"rebuild": {"imageRef": IMAGE, field: value}}
    ordered = [s for s, _lo, _hi in schema.BY_VERSION]
    start = ordered.index(first)
    assert [_ok(s, body) for s in ordered] == \
        [False] * start + [True] * (len(ordered) - start)


def test_personality_goes_at_257_and_takes_the_samples_base64():
    # Nova's base64 check skips characters outside the alphabet (the
    # upstream sample's contents have spaces in them).
    body = {"rebuild": {"imageRef": IMAGE, "personality": [
        {"path": "/etc/banner.txt", "contents": "ICAg aGk="}]}}
    assert _ok(schema.rebuild, body)
    assert not _ok(schema.rebuild_v257, body)
    body["rebuild"]["personality"][0]["contents"] = "abc"
    assert not _ok(schema.rebuild, body)


def test_image_is_required_and_a_uuid():
    assert not _ok(schema.rebuild_v294, {"rebuild": {}})
    assert not _ok(schema.rebuild_v294, {"rebuild": {"imageRef": "x"}})
    assert _ok(schema.rebuild_v294, {"rebuild": {
        "imageRef": IMAGE, "preserve_ephemeral": "yes",
        "hostname": "a.example.org"}})
