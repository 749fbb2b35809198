"""os-hosts (deprecated, 2.1 - 2.42): admins only."""
from keel.policies import base

HOSTS = "os_compute_api:os-hosts:%s"
_HOST = "/os-hosts/{host_name}"
_DEPRECATED = ("\n\nThis API is deprecated in favor of os-hypervisors and "
               "os-services.")

rules = [
    base.rule(HOSTS % "list", base.ADMIN, "List physical hosts." +
              _DEPRECATED, [("GET", "/os-hosts")]),
    base.rule(HOSTS % "show", base.ADMIN, "Show physical host." +
              _DEPRECATED, [("GET", _HOST)]),
    base.rule(HOSTS % "update", base.ADMIN, "Update physical host." +
              _DEPRECATED, [("PUT", _HOST)]),
    base.rule(HOSTS % "reboot", base.ADMIN, "Reboot physical host." +
              _DEPRECATED, [("GET", _HOST + "/reboot")]),
    base.rule(HOSTS % "shutdown", base.ADMIN, "Shutdown physical host." +
              _DEPRECATED, [("GET", _HOST + "/shutdown")]),
    base.rule(HOSTS % "start", base.ADMIN, "Start physical host." +
              _DEPRECATED, [("GET", _HOST + "/startup")]),
]


def list_rules():
    return rules
