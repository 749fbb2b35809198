"""The OpenAPI document covers the route table and carries the schemas."""
from jsonschema import validators

from keel.api import openapi
from keel.api import routes
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import keypairs
from tests.unit.api.conftest import call


def test_served_without_token_and_covers_every_route(conf):
    from keel.api import deploy
    from keel.conf import CONF
    app = deploy.deploy(CONF)  # keystone mode: no token needed for it
    resp = call(app, "/openapi.json")
    assert resp.status_int == 200
    doc = resp.json
    assert doc["openapi"].startswith("3.1")
    for template, method, _h in routes.iter_routes():
        assert method.lower() in doc["paths"][template], (method, template)
    assert doc["paths"]["/os-cells"]["get"]["responses"].keys() >= {"410"}
    proxy = doc["paths"]["/os-volumes"]["get"]
    assert proxy["x-openstack-max-version"] == "2.35"


def test_operation_ids_unique_and_refs_resolve():
    doc = openapi.build()
    ids = [op["operationId"] for item in doc["paths"].values()
           for op in item.values()]
    assert len(ids) == len(set(ids))
    assert "Fault" in doc["components"]["schemas"]
    validators.Draft202012Validator.check_schema(
        doc["components"]["schemas"]["Fault"])


def test_body_and_query_schemas_come_from_validation():
    @wsgi.expose(status=201, name="openapi.test.create")
    @validation.schema(keypairs.create_v210, "2.10", "2.91")
    @validation.schema(keypairs.create_v292, "2.92")
    def create(req):
        return {}

    @wsgi.expose(name="openapi.test.index")
    @validation.query_schema(keypairs.index_query_v275)
    def index(req):
        return {}

    doc = openapi.build({"/os-keypairs": {"POST": create, "GET": index}})
    post = doc["paths"]["/os-keypairs"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"] \
        is keypairs.create_v292
    assert [(r["min"], r["max"]) for r in post["x-openstack-microversions"]] \
        == [("2.10", "2.91"), ("2.92", None)]
    assert "201" in post["responses"]
    validators.Draft202012Validator.check_schema(
        post["requestBody"]["content"]["application/json"]["schema"])
    names = {p.get("name") for p in doc["paths"]["/os-keypairs"]["get"]
             ["parameters"]}
    assert {"limit", "marker", "user_id"} <= names
