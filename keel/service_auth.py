"""The auth plugin for a call made on a user's behalf: the user's own
token, wrapped with a service token when
``[service_user]/send_service_user_token`` is set (as Nova's
nova.service_auth), so the receiving service accepts the request even if
the user token expires during a long operation."""
import threading

from keystoneauth1 import loading as ks_loading
from keystoneauth1 import service_token
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

_LOCK = threading.Lock()
_SERVICE_AUTH = {}


def _service_auth(conf):
    with _LOCK:
        if id(conf) not in _SERVICE_AUTH:
            _SERVICE_AUTH[id(conf)] = ks_loading.load_auth_from_conf_options(
                conf, "service_user")
        return _SERVICE_AUTH[id(conf)]


def get_auth_plugin(user_auth, conf=None):
    """``user_auth``, or a wrapper adding the service token to it."""
    if conf is None:
        from keel.conf import CONF as conf
    if not conf.service_user.send_service_user_token:
        return user_auth
    service = _service_auth(conf)
    if service is None:
        LOG.warning("[service_user]/send_service_user_token is set but "
                    "[service_user] has no auth_type; sending the user "
                    "token alone.")
        return user_auth
    return service_token.ServiceTokenAuthWrapper(user_auth=user_auth,
                                                 service_auth=service)


def reset():
    with _LOCK:
        _SERVICE_AUTH.clear()
