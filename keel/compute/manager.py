"""Compute RPC endpoint (6.5): a thin dispatcher.

Operations arrive with later issues, one module each; what lives here is the
host-level part every compute needs from the start: the host uptime call,
resource tracking at start and periodically (through the resource tracker,
which reports to Placement), and the instance view the scheduler keeps of
this host (update at start, periodic sync).
"""
import datetime
import os

from oslo_log import log as logging
import oslo_messaging as messaging

from keel.conf import CONF
from keel import manager
from keel.rpc import versions
from keel.scheduler import rpcapi as scheduler_rpcapi

LOG = logging.getLogger(__name__)


def host_uptime_text(now=None):
    """The host's uptime in the format of ``uptime(1)`` (what Nova's
    drivers return for ``GET /os-hypervisors/{id}/uptime``)."""
    with open("/proc/uptime") as f:
        seconds = int(float(f.read().split()[0]))
    now = now or datetime.datetime.now()
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    up = f"{days} day{'s' if days != 1 else ''}, " if days else ""
    up += f"{hours:2d}:{minutes:02d}" if hours else f"{minutes} min"
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    return f" {now:%H:%M:%S} up {up},  load average: {load}"


def _resource_tracker_class():
    """The resource tracker, once the resources package provides it."""
    try:
        from keel.compute.resources import tracker
    except ImportError:
        return None
    return getattr(tracker, "ResourceTracker", None)


class ComputeManager(manager.Manager):
    target = messaging.Target(version=versions.COMPUTE_TARGET)
    service_name = "compute"

    def __init__(self, host=None, driver=None, reportclient=None,
                 scheduler_client=None):
        super().__init__(host=host or CONF.host, service_name="compute")
        self.driver = driver
        self.reportclient = reportclient
        self.scheduler_client = scheduler_client or \
            scheduler_rpcapi.SchedulerAPI()
        self.rt = None
        rt_class = _resource_tracker_class()
        if rt_class is not None and driver is not None:
            self.rt = rt_class(self.host, driver, reportclient)

    # -- lifecycle ------------------------------------------------------------
    def init_host(self, service_ref=None):
        from keel import context as keel_context
        ctxt = keel_context.get_admin_context()
        if self.driver is not None and hasattr(self.driver, "init_host"):
            self.driver.init_host(host=self.host)
        self._update_available_resource(ctxt, startup=True)
        self._update_scheduler_instance_info(ctxt)

    def cleanup_host(self):
        if self.driver is not None and hasattr(self.driver, "cleanup_host"):
            self.driver.cleanup_host(host=self.host)

    def _host_instances(self, ctxt):
        from keel import objects
        try:
            return objects.InstanceList.get_by_host(ctxt, self.host)
        except Exception as exc:  # noqa: BLE001 - report what we can
            LOG.warning("Could not list the instances of host %s: %s",
                        self.host, exc)
            return None

    def _update_scheduler_instance_info(self, ctxt):
        """Tell every scheduler which instances this host runs (at start)."""
        if not CONF.filter_scheduler.track_instance_changes:
            return
        from keel import objects
        instances = self._host_instances(ctxt)
        if instances is None:
            instances = objects.InstanceList(objects=[])
        self.scheduler_client.update_instance_info(ctxt, self.host,
                                                   instances)

    def _update_available_resource(self, ctxt, startup=False):
        if self.rt is None:
            return
        try:
            self.rt.update_available_resource(ctxt, startup=startup)
        except Exception:  # noqa: BLE001 - next period tries again
            LOG.exception("Error updating resources for node %s", self.host)

    # -- periodic tasks -------------------------------------------------------
    # Spacings are read when this module is imported: the keel commands
    # import managers only after parsing the configuration, as Nova does.
    @manager.periodic(spacing=CONF.update_resources_interval,
                      run_immediately=False)
    def update_available_resource(self, context, startup=False):
        self._update_available_resource(context, startup=startup)

    @manager.periodic(spacing=CONF.scheduler_instance_sync_interval)
    def _sync_scheduler_instance_info(self, context):
        if not CONF.filter_scheduler.track_instance_changes:
            return
        instances = self._host_instances(context)
        uuids = [inst.uuid for inst in instances] if instances else []
        self.scheduler_client.sync_instance_info(context, self.host, uuids)

    # -- RPC: host-level ------------------------------------------------------
    def get_host_uptime(self, context):
        if self.driver is not None and hasattr(self.driver,
                                               "get_host_uptime"):
            return self.driver.get_host_uptime()
        return host_uptime_text()
