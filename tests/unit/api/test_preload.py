"""keel.api.preload: what the first request would import is imported when
the app is built; nothing it does can stop the API from starting."""
import sys

from keel.api import preload
from keel.conf import CONF
from tests.unit.api.conftest import conf  # noqa: F401 - fixture


def test_warm_loads_the_rabbit_driver_and_service_modules(conf):  # noqa: F811
    conf.config(transport_url="rabbit://guest:guest@127.0.0.1:5672/")
    preload.warm(CONF)
    for name in ("oslo_messaging._drivers.impl_rabbit",
                 "kombu.transport.pyamqp", "keel.network.local"):
        assert name in sys.modules


def test_warm_never_raises(conf, monkeypatch):  # noqa: F811
    def broken(_conf):
        raise RuntimeError("no such driver")
    monkeypatch.setattr(preload, "_messaging_driver", broken)
    monkeypatch.setattr(preload, "_service_modules", broken)
    preload.warm(CONF)
