"""Defaults that Nova sets on the libraries it uses, applied the same way here."""
from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_middleware import cors


def set_library_defaults(conf):
    messaging.set_transport_defaults(control_exchange="nova")
    cors.set_defaults(
        allow_headers=[
            "X-Auth-Token", "X-Openstack-Request-Id", "X-Identity-Status",
            "X-Roles", "X-Service-Catalog", "X-User-Id", "X-Tenant-Id",
            "X-OpenStack-Nova-API-Version", "OpenStack-API-Version",
        ],
        expose_headers=[
            "X-Auth-Token", "X-Openstack-Request-Id", "X-Subject-Token",
            "X-Service-Token", "X-OpenStack-Nova-API-Version",
            "OpenStack-API-Version",
        ],
        allow_methods=["GET", "PUT", "POST", "DELETE", "PATCH"],
    )


def register_opts(conf):
    # oslo.log's options live in [DEFAULT]; registering them here lets
    # ``debug``/``log_file`` in a nova.conf take effect.
    try:
        logging.register_options(conf)
    except cfg.ArgsAlreadyParsedError:  # pragma: no cover - parse already ran
        pass


def list_opts():
    return {}
