"""Imports the API's first POST /servers would otherwise make, done once
when the application is built -- before ``keel api`` forks its workers.

Without this every forked worker pays, on its first request, for the
messaging driver (stevedore's entry-point scan, kombu and amqp), the
image and network API modules and SQLAlchemy's mapper configuration
(measured: the first POST took 105 ms of CPU instead of 10, 72 with this;
the rest is connecting). Done in the parent, the workers share the result
(and the start-up heap frozen for the garbage collector).

Only imports: no connection, transport or client is made here, since
sockets must not be shared across the fork.
"""
import importlib

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def _messaging_driver(conf):
    """The oslo.messaging driver class of ``[DEFAULT]/transport_url``,
    loaded (as oslo.messaging will load it) without being instantiated."""
    import oslo_messaging as messaging
    from stevedore import driver

    url = messaging.TransportURL.parse(conf, conf.transport_url)
    name = url.transport.split("+")[0]
    driver.DriverManager("oslo.messaging.drivers", name,
                         invoke_on_load=False)
    if name == "rabbit":
        # kombu resolves its transport class only when connecting.
        importlib.import_module("kombu.transport.pyamqp")


def _orm_mappers(conf):
    """SQLAlchemy configures the mappers on the first query (~35 ms)."""
    from sqlalchemy import orm

    from keel.db.api import models as _api  # noqa: F401
    from keel.db.cell import models as _cell  # noqa: F401
    orm.configure_mappers()


def _service_modules(conf):
    from keel.image import api as image_api
    from keel.network import api as network_api

    names = ["keel.image.local" if image_api.use_local(conf)
             else "keel.image.glance"]
    names.append("keel.network.neutron" if network_api.is_neutron(conf)
                 else "keel.network.local")
    for name in names:
        importlib.import_module(name)


def warm(conf):
    """Best effort: a failure here only means the first request of each
    worker imports what it needs itself, as before."""
    for step in (_messaging_driver, _service_modules, _orm_mappers):
        try:
            step(conf)
        except Exception as exc:  # noqa: BLE001 - never stops the API
            LOG.debug("API preload step %s skipped: %s", step.__name__, exc)
