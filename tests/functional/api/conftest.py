"""The API served over real HTTP (cheroot in a thread) for real clients."""
import threading

import pytest

from keel.api import deploy
from keel.api import server
from keel.conf import CONF
from tests.unit.api.conftest import conf  # noqa: F401 - fixture


@pytest.fixture
def api_url(conf):  # noqa: F811
    conf.config(auth_strategy="keel-development", group="api")
    app = deploy.deploy(CONF)
    sock = server.listen("127.0.0.1", 0)
    srv = server.make_server(sock, app, threads=4, shutdown_timeout=1)
    thread = threading.Thread(target=srv.safe_start, daemon=True)
    thread.start()
    while not srv.ready:
        thread.join(0.01)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    srv.stop()
    thread.join(5)
    sock.close()
