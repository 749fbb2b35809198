"""An API database plus cell0 and one cell, all SQLite, for API tests.

``cells_db`` points ``[api_database]`` and ``[database]`` at fresh
databases (SQLite files; KEEL_API_TEST_BACKEND=mysql or postgresql uses the
machine's real servers), creates the schemas and the two cell mappings, and
undoes it all after.
``api_env`` adds the development-mode WSGI app (``call``-able in process)
on top; ``serve`` puts any WSGI app behind real HTTP for SDK/OSC tests.
"""
import contextlib
import os

import pytest

from keel.api import deploy
from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects
from tests.fixtures import databases
from tests.fixtures import http_app

objects.register_all()

CELL1_UUID = "5a2d6b8e-6c8f-4b0e-9a3c-2f1d2e3c4b5a"
BACKEND = os.environ.get("KEEL_API_TEST_BACKEND", "sqlite")


class Cells:
    def __init__(self, api_db_url, cell0_url, cell1_url):
        self.api_db_url = api_db_url
        self.cell_urls = {objects.CellMapping.CELL0_UUID: cell0_url,
                          CELL1_UUID: cell1_url}

    def mapping(self, cell_uuid):
        return objects.CellMapping.get_by_uuid(
            keel_context.get_admin_context(), cell_uuid)


def _make_cells(tmp_path):
    urls = [databases.create(BACKEND, prefix=p, tmp_path=tmp_path)
            for p in ("keel_api", "keel_cell0", "keel_cell1")]
    CONF.set_override("connection", urls[0], group="api_database")
    CONF.set_override("connection", urls[2], group="database")
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    for url in urls[1:]:
        cell_models.Base.metadata.create_all(session.cell_engine(url))
    ctx = keel_context.get_admin_context()
    for cell_uuid, name, url in (
            (objects.CellMapping.CELL0_UUID, "cell0", urls[1]),
            (CELL1_UUID, "cell1", urls[2])):
        objects.CellMapping(ctx, uuid=cell_uuid, name=name,
                            transport_url="none:///",
                            database_connection=url).create()
    return Cells(*urls)


@pytest.fixture
def cells_db(tmp_path, conf):
    cells = _make_cells(tmp_path)
    yield cells
    session.reset()
    CONF.clear_override("connection", group="api_database")
    CONF.clear_override("connection", group="database")
    for url in [cells.api_db_url, *cells.cell_urls.values()]:
        databases.drop(url)


@pytest.fixture
def api_env(cells_db, conf):
    """The development-mode app over the cells (``[api]`` admin roles by
    default; pass ``X-Auth-Token: user:project`` to act as someone)."""
    conf.config(auth_strategy="keel-development", group="api")
    return deploy.deploy(CONF)


@pytest.fixture
def serve():
    """``serve(app) -> base URL`` over real HTTP, stopped at teardown."""
    with contextlib.ExitStack() as running:
        yield lambda app: running.enter_context(http_app.served(app))


@pytest.fixture
def member_env(cells_db, conf):
    """The same API for a plain project member (no admin role)."""
    conf.config(auth_strategy="keel-development", group="api")
    conf.config(development_roles=["member", "reader"], group="api")
    app = deploy.deploy(CONF)
    return app


@pytest.fixture
def cells_api_url(api_env, serve):
    """The development-mode API over the SQLite cells, on real HTTP."""
    return serve(api_env)


@pytest.fixture
def sdk(cells_api_url):
    """An openstacksdk connection to ``cells_api_url`` (no Keystone)."""
    import openstack
    conn = openstack.connection.Connection(
        auth_type="none", compute_endpoint_override=f"{cells_api_url}/v2.1/",
        compute_api_version="2")
    yield conn
    conn.close()
