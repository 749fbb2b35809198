"""Fuzz the API from its own OpenAPI document: no request may end in a 500.

Every operation of /openapi.json is called with generated bodies (from the
request schema via schema_cases, plus broken JSON and wrong media types),
generated query strings, odd path values and microversion headers (valid,
out of range, malformed). Deterministic (seeded) so a failure reproduces.
"""
import json
import random
import pathlib
import re
import urllib.parse

import pytest

from keel.api import deploy
from keel.api import openapi
from keel.conf import CONF
from tests.unit.api import schema_cases
from tests.unit.api.conftest import call

PATH_VALUES = ["1", "0", schema_cases.UUID, "x" * 300, "%2F", "abc-def",
               "nova%00", "%C3%BCn%C3%AF", "-1"]
VERSIONS = [None, "compute 2.1", "compute latest", "compute 2.36",
            "compute 2.999", "compute 2.x", "compute", "compute 1.0"]
RAW_BODIES = [b"", b"{", b"[]", b"null", b'"s"', b"\xff\xfe", b"{}" * 3]
_VAR = re.compile(r"\{[^}]+\}")


def _operations():
    doc = openapi.build()
    for template, item in doc["paths"].items():
        for method, op in item.items():
            yield pytest.param(template, method.upper(), op,
                               id=f"{method.upper()} {template}")


@pytest.fixture(scope="module")
def databases(tmp_path_factory):
    """An API database and two cells (cell0 + cell1) on SQLite, migrated
    once for the module: routes that read the databases must answer the
    fuzzed requests with 4xx, never 500, as they would in a deployment."""
    from keel import context
    from keel.db import migration
    from keel.db import session
    from keel import objects

    tmp = tmp_path_factory.mktemp("fuzzdb")
    urls = {name: f"sqlite:///{tmp}/{name}.sqlite"
            for name in ("api", "cell0", "cell1")}
    saved = (CONF.api_database.connection, CONF.database.connection)
    CONF.set_override("connection", urls["api"], group="api_database")
    CONF.set_override("connection", urls["cell1"], group="database")
    try:
        migration.db_sync("api")
        migration.db_sync("main", connection=urls["cell0"])
        migration.db_sync("main", connection=urls["cell1"])
        objects.register_all()
        ctx = context.get_admin_context()
        objects.CellMapping(ctx, uuid=objects.CellMapping.CELL0_UUID,
                            name="cell0", transport_url="none:///",
                            database_connection=urls["cell0"]).create()
        objects.CellMapping(ctx, uuid=schema_cases.UUID, name="cell1",
                            transport_url="fake:/",
                            database_connection=urls["cell1"]).create()
    finally:
        CONF.clear_override("connection", group="api_database")
        CONF.clear_override("connection", group="database")
    yield urls
    session.reset()
    del saved


@pytest.fixture
def app(conf, databases):
    conf.config(auth_strategy="keel-development", group="api")
    conf.config(connection=databases["api"], group="api_database")
    conf.config(connection=databases["cell1"], group="database")
    conf.config(transport_url="fake:/")
    # The image proxy reads the local image catalogue (no Glance here).
    conf.config(path=str(pathlib.Path(databases["api"][len("sqlite:///"):])
                         .parent / "images"), group="image_catalogue")
    return deploy.deploy(CONF)


def _queries(op):
    names = [p["name"] for p in op["parameters"] if p.get("in") == "query"]
    values = ["", "-1", "0", "abc", schema_cases.UUID, "x" * 300, "1.5"]
    out = [""] + [urllib.parse.urlencode({n: v}) for n in names
                  for v in values]
    out.append("limit=-1&marker=&sort_key=zz&zz_unknown=1")
    return out


@pytest.mark.parametrize("template,method,op", list(_operations()))
def test_no_server_errors(app, template, method, op):
    rnd = random.Random(f"{method} {template}")
    schema = (op.get("requestBody", {}).get("content", {})
              .get("application/json", {}).get("schema"))
    bodies = [json.dumps(d).encode()
              for d in schema_cases.documents(schema or {})] + RAW_BODIES
    calls = 0
    for _ in range(60):
        path = _VAR.sub(lambda _m: rnd.choice(PATH_VALUES), template)
        query = rnd.choice(_queries(op))
        url = "/v2.1" + rnd.choice(["", "/ab12"]) + path + \
            ("?" + query if query else "")
        headers = {"X-Auth-Token": rnd.choice(["u:ab12", "u:ff", ""])}
        version = rnd.choice(VERSIONS)
        if version:
            headers["OpenStack-API-Version"] = version
        body = rnd.choice(bodies) if method in ("POST", "PUT") else None
        ctype = rnd.choice(["application/json", "application/json",
                            "text/plain", "application/xml"])
        resp = call(app, url, method=method, headers=headers, body=body,
                    content_type=ctype)
        calls += 1
        assert resp.status_int < 500 or resp.status_int == 501, \
            (method, url, headers, body, resp.status, resp.body[:300])
    assert calls == 60
