"""Our schemas accept and reject exactly what upstream Nova's do.

Generated documents (tests/unit/api/schema_cases.py), not copies: both
schemas see the same documents and must agree on every one.
"""
import importlib
import json
import pkgutil

import pytest

from keel.api import routes
from keel.api import schemas as schema_pkg
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import keypairs
from tests.unit.api import route_schemas
from tests.unit.api import schema_cases


def _declared():
    for info in pkgutil.iter_modules(schema_pkg.__path__):
        mod = importlib.import_module(f"keel.api.schemas.{info.name}")
        for ours, ref in getattr(mod, "UPSTREAM", {}).items():
            yield pytest.param(getattr(mod, ours), ref,
                               id=f"{info.name}.{ours}")


@pytest.mark.parametrize("ours,ref", list(_declared()))
def test_declared_schema_matches_upstream(ours, ref):
    diffs = schema_cases.parity(ours, route_schemas.upstream_schema(ref))
    assert diffs == [], f"{ref}: disagree on {diffs[:3]}"


def test_route_table_schemas_match_upstream():
    cases, unmatched = route_schemas.comparisons(routes.ROUTES)
    assert unmatched == [], "schemas on routes routes.json does not know"
    assert route_schemas.problems(cases) == []
    assert route_schemas.uncovered(routes.ROUTES) == []


# --- the mechanism itself, on a route table made for the purpose -------

_COUNTER = iter(range(10**6))


def _keypair_table(create_210_schema):
    name = f"parity.create.{next(_COUNTER)}"

    @wsgi.expose(max_version="2.1", name=name)
    @validation.schema(keypairs.create)
    def create_21(req):
        return {}

    @wsgi.expose(min_version="2.2", max_version="2.9", name=name)
    @validation.schema(keypairs.create_v22)
    def create_22(req):
        return {}

    @wsgi.expose(min_version="2.10", name=name)
    @validation.schema(create_210_schema, "2.10", "2.91")
    @validation.schema(keypairs.create_v292, "2.92")
    def create_210(req):
        return {}

    def pick(req):
        return None
    # create_21/_22/_210 share a name: one dispatcher over three ranges
    assert create_21 is create_22 is create_210
    return {"/os-keypairs": {"POST": create_22},
            "/os-keypairs/{id}": {"DELETE": wsgi.expose(
                min_version="2.10", name=f"parity.delete.{name}")(
                validation.query_schema(keypairs.delete_query_v210,
                                        "2.10", "2.74")(pick))}}


def test_mechanism_accepts_matching_schemas():
    table = _keypair_table(keypairs.create_v210)
    cases, unmatched = route_schemas.comparisons(table)
    assert unmatched == []
    refs = sorted(ref for *_x, ref in cases)
    assert refs == ["keypairs.create", "keypairs.create_v210",
                    "keypairs.create_v22", "keypairs.create_v292",
                    "keypairs.delete_query_v210"]
    assert route_schemas.problems(cases) == []
    # DELETE at 2.75+ has an upstream schema the table does not apply
    assert route_schemas.uncovered(table) == [
        ("DELETE", "/os-keypairs/{id}", None, "keypairs.delete_query_v275")]


def test_mechanism_reports_a_wrong_schema():
    table = {"/os-keypairs": {"POST": _keypair_table(
        keypairs.create_v22)["/os-keypairs"]["POST"]}}
    # The 2.2 handler is all this table routes; give it 2.10's schema range
    handler = wsgi.expose(min_version="2.10",
                          name=f"parity.wrong.{next(_COUNTER)}")(
        validation.schema(keypairs.create_v22, "2.10", "2.91")(
            lambda req: None))
    table["/os-keypairs"]["POST"] = handler
    cases, _ = route_schemas.comparisons(table)
    found = route_schemas.problems(cases)
    assert [case[3] for case, _d in found] == ["keypairs.create_v210"]


KNOWN_DIFFERENT = [
    ("keypairs.create", "keypairs.create_v22"),
    ("keypairs.create_v22", "keypairs.create_v210"),
    ("keypairs.create_v210", "keypairs.create_v292"),
    ("keypairs.index_query_v235", "keypairs.index_query_v275"),
    ("flavors.create", "flavors.create_v255"),
    ("server_groups.create", "server_groups.create_v215"),
    ("server_groups.create_v215", "server_groups.create_v264"),
    ("quota_sets.update", "quota_sets.update_v236"),
    ("services.update", "services.update_v211"),
]


@pytest.mark.parametrize("a,b", KNOWN_DIFFERENT)
def test_generator_tells_different_schemas_apart(a, b):
    first = route_schemas.upstream_schema(a)
    second = route_schemas.upstream_schema(b)
    assert schema_cases.parity(first, second), f"{a} vs {b} look identical"
    assert schema_cases.parity(first, first) == []


IN_SCOPE = ["keypairs", "flavors", "flavor_access", "flavors_extraspecs",
            "limits", "quota_sets", "quota_classes", "server_groups",
            "aggregates", "services", "hypervisors", "availability_zone",
            "migrations", "instance_actions", "simple_tenant_usage",
            "server_external_events", "images", "server_tags",
            "server_metadata", "ips", "image_metadata", "pause_server",
            "suspend_server", "rescue", "lock_server", "console_output",
            "remote_consoles"]


@pytest.mark.parametrize("module", IN_SCOPE)
def test_generator_reaches_both_verdicts(module):
    data = json.loads((route_schemas.REFERENCE / "schemas" /
                       f"{module}.json").read_text())
    for name, schema in data.items():
        if "response" in name:
            continue
        docs = schema_cases.documents(schema)
        verdicts = {schema_cases._validator(schema).ok(d) for d in docs}
        if schema.get("additionalProperties", True) is not False and \
                not schema.get("properties") and \
                not schema.get("patternProperties"):
            continue  # "anything goes" query schemas reject only non-objects
        assert verdicts == {True, False}, f"{module}.{name}"
