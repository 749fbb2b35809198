"""API and cell databases for the object tests, created from the models'
metadata. SQLite by default (fast); KEEL_OBJECTS_TEST_BACKEND=mysql or
postgresql runs the same tests on the machine's real servers."""
import os

import pytest

from keel import context as keel_context
from keel import objects
from tests.fixtures import databases

objects.register_all()

BACKEND = os.environ.get("KEEL_OBJECTS_TEST_BACKEND", "sqlite")


@pytest.fixture
def dbs(tmp_path):
    with databases.keel_databases(BACKEND, tmp_path, "keel_obj"):
        yield


@pytest.fixture
def ctx(dbs):
    return keel_context.RequestContext(user_id="fake-user",
                                       project_id="fake-project")


@pytest.fixture
def admin_ctx(dbs):
    return keel_context.get_admin_context()
