"""The API served over real HTTP (cheroot in a thread) for real clients."""
import pytest

from keel.api import deploy
from keel.conf import CONF
from tests.fixtures import http_app
from tests.unit.api.conftest import conf  # noqa: F401 - fixture


@pytest.fixture
def api_url(conf):  # noqa: F811
    conf.config(auth_strategy="keel-development", group="api")
    app = deploy.deploy(CONF)
    with http_app.served(app) as url:
        yield url
