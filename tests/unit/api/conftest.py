"""Fixtures for API unit tests: a parsed CONF with overrides undone after."""
import json
import pathlib

from oslo_config import cfg
import pytest
import webob

from keel.conf import CONF
from keel import policy

REFERENCE = pathlib.Path(__file__).resolve().parents[4] / "shared" / \
    "reference" / "compute-api"


class ConfOverrides:
    """``config(name=value, group=...)`` overrides, all undone at teardown."""

    def __init__(self, conf):
        self.conf = conf
        self.done = []

    def config(self, group=None, **values):
        for name, value in values.items():
            self.conf.set_override(name, value, group=group)
            self.done.append((name, group))

    def undo(self):
        for name, group in reversed(self.done):
            self.conf.clear_override(name, group=group)


def ensure_parsed():
    try:
        CONF.config_file
    except cfg.NoSuchOptError:
        from keel.conf import defaults
        defaults.set_library_defaults(CONF)  # as keel.cmd.common does
        CONF([], project="nova", default_config_files=[])


@pytest.fixture
def conf():
    ensure_parsed()
    overrides = ConfOverrides(CONF)
    policy.reset()
    yield overrides
    overrides.undo()
    policy.reset()


@pytest.fixture
def dev_app(conf):
    """The whole stack in keel-development auth mode."""
    from keel.api import deploy
    conf.config(auth_strategy="keel-development", group="api")
    return deploy.deploy(CONF)


def call(app, path, method="GET", headers=None, body=None,
         content_type="application/json", **kwargs):
    req = webob.Request.blank(path, method=method, headers=headers or {},
                              **kwargs)
    if body is not None:
        req.body = body if isinstance(body, bytes) else \
            json.dumps(body).encode()
        req.content_type = content_type
    return req.get_response(app)


def sample(name):
    return json.loads((REFERENCE / "samples" / name).read_text())


def routes_json():
    return json.loads((REFERENCE / "routes.json").read_text())["routes"]
