"""Body and query validation with Nova's error messages."""
import pytest

from keel.api import deploy
from keel.api import validation
from keel.api import wsgi
from keel.conf import CONF
from tests.unit.api.conftest import call

BODY = {
    "type": "object",
    "properties": {
        "thing": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "format": "name",
                         "minLength": 1, "maxLength": 10},
                "size": {"type": ["integer", "string"],
                         "pattern": "^[0-9]+$", "minimum": 1},
                "id": {"type": "string", "format": "uuid"},
            },
            "required": ["name"],
            "additionalProperties": False,
        },
    },
    "required": ["thing"],
    "additionalProperties": False,
}
QUERY = {
    "type": "object",
    "properties": {"limit": {"type": "array", "items": {
        "type": "string", "pattern": "^[0-9]+$"}}},
    "additionalProperties": True,
}


@wsgi.expose(status=201, name="test.validation.create")
@validation.schema(BODY)
def _create(req):
    return {"got": req.json_body}


@wsgi.expose(name="test.validation.index")
@validation.query_schema(QUERY)
def _index(req):
    return {"params": sorted(req.GET.keys())}


@pytest.fixture
def app(conf):
    conf.config(auth_strategy="keel-development", group="api")
    return deploy.deploy(CONF, table={
        "/things": {"POST": _create, "GET": _index}})


def _error(resp):
    assert resp.status_int == 400, resp.body
    return resp.json["badRequest"]["message"]


def test_valid_body_passes(app):
    resp = call(app, "/v2.1/things", method="POST",
                body={"thing": {"name": "a", "size": "3"}})
    assert resp.status_int == 201


@pytest.mark.parametrize("body,message", [
    ({"thing": {"name": "a", "size": 0}},
     "Invalid input for field/attribute size. Value: 0. 0 is less than the "
     "minimum of 1"),
    ({"thing": {"name": ""}},
     "Invalid input for field/attribute name. Value: . '' should be "
     "non-empty"),
    ({"thing": {"name": "a", "id": "nope"}},
     "Invalid input for field/attribute id. Value: nope. 'nope' is not a "
     "'uuid'"),
    ({"thing": {"name": "a", "x": 1}},
     "Invalid input for field/attribute thing. Value: {'name': 'a', 'x': 1}."
     " Additional properties are not allowed ('x' was unexpected)"),
    ({"thing": {}}, "Invalid input for field/attribute thing. Value: {}. "
                    "'name' is a required property"),
    ({"thing": {"name": "a"}, "y": 2},
     "Additional properties are not allowed ('y' was unexpected)"),
    ({"thing": {"name": " padded"}},
     "An invalid 'name' value was provided. The name must be: printable "
     "characters. Can not start or end with whitespace."),
])
def test_invalid_bodies_name_the_field(app, body, message):
    resp = call(app, "/v2.1/things", method="POST", body=body)
    assert _error(resp).startswith(message)


def test_missing_body(app):
    resp = call(app, "/v2.1/things", method="POST")
    assert _error(resp) == "None is not of type 'object'"


def test_legacy_v2_drops_unknown_properties(app):
    resp = call(app, "/v2/things", method="POST",
                body={"thing": {"name": "a", "x": 1}, "extra": True})
    assert resp.status_int == 201
    assert resp.json == {"got": {"thing": {"name": "a"}}}


def test_query_validation_and_stripping(app):
    resp = call(app, "/v2.1/things?limit=-1")
    assert _error(resp).startswith(
        "Invalid input for query parameters limit. Value: -1.")
    resp = call(app, "/v2.1/things?limit=5&unknown=1")
    assert resp.status_int == 200
    assert resp.json == {"params": ["limit"]}


def test_schemas_are_recorded_for_tools():
    kinds = [r["kind"] for r in _create.impls[0][2].__keel_schemas__]
    assert kinds == ["body"]
