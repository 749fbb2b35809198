"""SQLite API and cell databases, created from the models' metadata."""
import pytest

from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects

objects.register_all()


@pytest.fixture
def dbs(tmp_path):
    CONF.set_override("connection", f"sqlite:///{tmp_path}/api.sqlite",
                      group="api_database")
    CONF.set_override("connection", f"sqlite:///{tmp_path}/cell.sqlite",
                      group="database")
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    cell_models.Base.metadata.create_all(session.cell_engine())
    yield
    session.reset()
    CONF.clear_override("connection", group="api_database")
    CONF.clear_override("connection", group="database")


@pytest.fixture
def ctx(dbs):
    return keel_context.RequestContext(user_id="fake-user",
                                       project_id="fake-project")


@pytest.fixture
def admin_ctx(dbs):
    return keel_context.get_admin_context()
