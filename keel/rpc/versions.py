"""RPC API versions, release aliases and the version caps clients use.

The numbers are Nova 34's: servers speak compute 6.5, conductor 3.0 (+
``compute_task`` 1.26) and scheduler 4.5. A client is capped by
``[upgrade_levels]/<service>`` (a version or a release name); for compute the
``auto`` setting derives the cap from the oldest nova-compute service found in
every cell's ``services`` table, through ``COMPUTE_RPC_BY_SERVICE_VERSION``.
"""
import threading

from oslo_log import log as logging

from keel.conf import CONF
from keel import exception

LOG = logging.getLogger(__name__)

COMPUTE_TARGET = "6.5"
CONDUCTOR_TARGET = "3.0"
COMPUTE_TASK_TARGET = "1.26"
SCHEDULER_TARGET = "4.5"

# The service version written in the services table: Nova 34 (Hibiscus).
SERVICE_VERSION = 74

# Compute RPC version spoken by each service version, index = service
# version, 0..SERVICE_VERSION (Nova's SERVICE_VERSION_HISTORY, compute part).
COMPUTE_RPC_BY_SERVICE_VERSION = (
    "4.0", "4.4", "4.5", "4.6", "4.6", "4.7", "4.8", "4.9", "4.10", "4.11",
    "4.11", "4.12", "4.12", "4.13", "4.13", "4.13", "4.13", "4.13", "4.14",
    "4.15", "4.16", "4.17", "4.17", "4.18", "4.18", "4.18", "4.19", "4.20",
    "4.21", "4.22", "5.0", "5.0", "5.0", "5.0", "5.0", "5.0", "5.0", "5.1",
    "5.1", "5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8", "5.9", "5.10",
    "5.10", "5.10", "5.11", "5.11", "5.11", "5.12", "5.13", "5.13", "6.0",
    "6.0", "6.0", "6.0", "6.0", "6.0", "6.0", "6.0", "6.1", "6.1", "6.2",
    "6.3", "6.4", "6.4", "6.4", "6.5", "6.5", "6.5", "6.5",
)
assert len(COMPUTE_RPC_BY_SERVICE_VERSION) == SERVICE_VERSION + 1

# Release name -> service version (Nova's SERVICE_VERSION_ALIASES).
SERVICE_VERSION_ALIASES = {
    "Victoria": 52, "Wallaby": 54, "Xena": 57, "Yoga": 61, "Zed": 64,
    "Antelope": 66, "Bobcat": 66, "Caracal": 66, "Dalmatian": 67,
    "Epoxy": 68, "Flamingo": 70, "Gazpacho": 72, "Hibiscus": 74,
}

COMPUTE_ALIASES = {
    "icehouse": "3.23", "juno": "3.35", "kilo": "4.0", "liberty": "4.5",
    "mitaka": "4.11", "newton": "4.13", "ocata": "4.13", "pike": "4.17",
    "queens": "5.0", "rocky": "5.0", "stein": "5.1", "train": "5.3",
    "ussuri": "5.11", "victoria": "5.12", "wallaby": "6.0", "xena": "6.0",
    "yoga": "6.0", "zed": "6.1", "antelope": "6.2", "bobcat": "6.2",
    "caracal": "6.3", "dalmatian": "6.3", "epoxy": "6.4", "flamingo": "6.4",
    "gazpacho": "6.5", "hibiscus": "6.5",
}
CONDUCTOR_ALIASES = {
    "grizzly": "1.48", "havana": "1.58", "icehouse": "2.0", "juno": "2.0",
    "kilo": "2.1", "liberty": "3.0", "mitaka": "3.0", "newton": "3.0",
    "ocata": "3.0",
}
SCHEDULER_ALIASES = {
    "grizzly": "2.6", "havana": "2.9", "icehouse": "3.0", "juno": "3.0",
    "kilo": "4.2", "liberty": "4.2", "mitaka": "4.3", "newton": "4.3",
    "ocata": "4.3", "pike": "4.4",
}

# The binaries in the services table are Nova's, so mixed fleets agree.
COMPUTE_BINARY = "nova-compute"



class UnsupportedRPCVersion(exception.Invalid):
    """Client-side refusal to send below a method's version (Nova's name;
    kept here until keel.exception carries it)."""
    msg_fmt = "Unsupported RPC version for %(api)s. Required >= %(required)s"


_cache_lock = threading.Lock()
_compute_auto_cap = None


def _alias(aliases, value):
    if not value:
        return None
    return aliases.get(value.lower(), value)


def conductor_cap():
    return _alias(CONDUCTOR_ALIASES, CONF.upgrade_levels.conductor)


def scheduler_cap():
    return _alias(SCHEDULER_ALIASES, CONF.upgrade_levels.scheduler)


def compute_cap(minimum_service_version=None):
    """The compute client's version cap from ``[upgrade_levels]/compute``.

    Unset: no cap (the newest version, Nova's default). ``auto``: from the
    minimum nova-compute service version; ``minimum_service_version`` lets a
    caller that already knows it skip the database.
    """
    level = CONF.upgrade_levels.compute
    if level == "auto":
        return _auto_compute_cap(minimum_service_version)
    return _alias(COMPUTE_ALIASES, level)


def compute_rpc_for_service_version(service_version):
    try:
        return COMPUTE_RPC_BY_SERVICE_VERSION[service_version]
    except IndexError:
        raise exception.ServiceTooOld(thisver=SERVICE_VERSION,
                                      minver=service_version)


def _auto_compute_cap(minimum_service_version=None):
    global _compute_auto_cap
    with _cache_lock:
        if _compute_auto_cap is not None:
            return _compute_auto_cap
    version = minimum_service_version
    if version is None:
        version = minimum_compute_service_version()
    if not version:
        # No compute has registered yet: speak our own version and do not
        # cache, the next client gets a better answer (as Nova does).
        LOG.debug("No nova-compute service found; compute RPC cap defaults "
                  "to %s and is not cached", COMPUTE_TARGET)
        return COMPUTE_TARGET
    cap = compute_rpc_for_service_version(version)
    with _cache_lock:
        _compute_auto_cap = cap
    LOG.info("Automatically selected compute RPC version %s from minimum "
             "service version %d", cap, version)
    return cap


def reset_cache():
    """Forget the cached ``auto`` cap (tests, and the SIGHUP of a service)."""
    global _compute_auto_cap
    with _cache_lock:
        _compute_auto_cap = None


def minimum_compute_service_version():
    """The oldest nova-compute service version in every reachable cell.

    With an API database every cell is asked in parallel (a cell that does
    not answer is skipped); without one, only this process's own cell.
    """
    from keel import context as keel_context
    from keel import objects
    from keel.objects import service as service_obj

    ctxt = keel_context.get_admin_context()
    if not CONF.api_database.connection:
        return objects.Service.get_minimum_version(ctxt, COMPUTE_BINARY)
    return service_obj.get_minimum_version_all_cells(
        ctxt, [COMPUTE_BINARY])[COMPUTE_BINARY]
