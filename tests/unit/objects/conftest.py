"""API and cell databases for the object tests, created from the models'
metadata. SQLite by default (fast); KEEL_OBJECTS_TEST_BACKEND=mysql or
postgresql runs the same tests on the machine's real servers."""
import os

import pytest

from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects
from tests.fixtures import databases

objects.register_all()

BACKEND = os.environ.get("KEEL_OBJECTS_TEST_BACKEND", "sqlite")


@pytest.fixture
def dbs(tmp_path):
    urls = [databases.create(BACKEND, prefix="keel_objapi", tmp_path=tmp_path),
            databases.create(BACKEND, prefix="keel_objcell",
                             tmp_path=tmp_path)]
    CONF.set_override("connection", urls[0], group="api_database")
    CONF.set_override("connection", urls[1], group="database")
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    cell_models.Base.metadata.create_all(session.cell_engine())
    yield
    session.reset()
    CONF.clear_override("connection", group="api_database")
    CONF.clear_override("connection", group="database")
    for url in urls:
        databases.drop(url)


@pytest.fixture
def ctx(dbs):
    return keel_context.RequestContext(user_id="fake-user",
                                       project_id="fake-project")


@pytest.fixture
def admin_ctx(dbs):
    return keel_context.get_admin_context()
