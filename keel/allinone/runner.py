"""Start and stop the all-in-one's parts in dependency order.

Order: Placement → databases and cells → conductor and scheduler → computes
→ host discovery → API. Stopping goes the other way, and every part gets a
bounded time so Ctrl-C ends the process within seconds.
"""
import threading
import time

from oslo_log import log as logging

from keel.allinone import bootstrap
from keel.allinone import settings
from keel.conf import CONF

LOG = logging.getLogger(__name__)

DISCOVERY_INTERVAL = 2.0
STOP_TIMEOUT = 5


class AllInOne:
    def __init__(self, layout, conf=CONF):
        self.layout = layout
        self.conf = conf
        self.placement = None
        self.services = []
        self.api_server = None
        self._api_thread = None
        self.image_server = None
        self.image_endpoint = None
        self._stop = threading.Event()
        self._discovery_thread = None

    # -- start ---------------------------------------------------------------
    def start(self):
        from keel.embedded import placement as embedded_placement

        self.placement = embedded_placement.start_placement(
            self.layout.placement_db, host=self.layout.listen,
            port=self.layout.placement_port)
        # Keel's own Placement clients skip the loopback HTTP hop.
        self.placement.serve_in_process()
        from keel.allinone import placement_tuning
        placement_tuning.apply()
        settings.apply(self.conf, self.layout, self.placement.endpoint)
        bootstrap.prepare(self.layout, settings.IN_PROCESS_TRANSPORT)
        self._start_services()
        self._discover_until_mapped()
        self._discovery_thread = threading.Thread(
            target=self._discovery_loop, name="discover-hosts", daemon=True)
        self._discovery_thread.start()
        self._start_image_endpoint()
        self._start_api()

    def _start_services(self):
        from keel.cmd import compute as compute_cmd
        from keel.conductor import manager as conductor_manager
        from keel import objects
        from keel.rpc import transport as rpc_transport
        from keel.scheduler import manager as scheduler_manager
        from keel import service

        objects.register_all()
        rpc_transport.init(self.conf)
        host = self.conf.host
        self.services = [
            service.Service(host=host, binary="nova-conductor",
                            topic="conductor",
                            manager=conductor_manager.ConductorManager(host)),
            service.Service(host=host, binary="nova-scheduler",
                            topic="scheduler",
                            manager=scheduler_manager.SchedulerManager(host)),
        ]
        # KubeVirt: one compute service for the cluster (its nodes are the
        # compute nodes); fake driver: one service per simulated host.
        count = None if self.layout.kubevirt else self.layout.hosts
        self.services += compute_cmd.build_services(count)
        for svc in self.services:
            svc.start()

    def _discover_until_mapped(self, timeout=30):
        """Map the simulated hosts before the API opens, so the first
        request already sees them (nova-manage cell_v2 discover_hosts)."""
        wanted = self.layout.hosts or 1
        deadline = time.monotonic() + timeout
        mapped = 0
        while time.monotonic() < deadline:
            mapped += len(bootstrap.discover_hosts() or [])
            if mapped >= wanted:
                return
            time.sleep(0.2)
        LOG.warning("Only %d of %d compute hosts were mapped to a cell",
                    mapped, wanted)

    def _discovery_loop(self):
        # Nova's [scheduler]/discover_hosts_in_cells_interval, always on here.
        while not self._stop.wait(DISCOVERY_INTERVAL):
            try:
                bootstrap.discover_hosts()
            except Exception:  # noqa: BLE001 - retried on the next tick
                LOG.exception("Host discovery failed")

    def _start_api(self):
        from keel.api import deploy
        from keel.api import server

        app = deploy.deploy(self.conf)
        sock = server.listen(self.layout.listen, self.layout.api_port)
        self.layout.api_port = sock.getsockname()[1]
        kwargs = server.server_kwargs(self.conf)
        kwargs["shutdown_timeout"] = STOP_TIMEOUT
        self.api_server = server.make_server(sock, app, **kwargs)
        self.api_server.prepare()
        self._api_thread = threading.Thread(
            target=self.api_server.serve, name="api-wsgi", daemon=True)
        self._api_thread.start()

    def _start_image_endpoint(self):
        """The local catalogue as a Glance v2 endpoint, when it is used."""
        from keel.allinone import image_endpoint
        from keel.api import server
        from keel.image import api as image_api

        opts = self.conf.image_catalogue
        if not opts.serve or not image_api.use_local(self.conf):
            return
        try:
            sock = server.listen(self.layout.listen, opts.port)
        except OSError as exc:
            LOG.warning("Image endpoint not served: port %s: %s", opts.port,
                        exc)
            return
        self.image_endpoint = self.layout.url(sock.getsockname()[1])
        settings.use_image_endpoint(self.conf, self.image_endpoint)
        self.image_server = server.make_server(
            sock, image_endpoint.ImageEndpoint(opts.path), threads=4,
            shutdown_timeout=STOP_TIMEOUT)
        self.image_server.prepare()
        threading.Thread(target=self.image_server.serve, name="image-wsgi",
                         daemon=True).start()

    # -- endpoints -----------------------------------------------------------
    @property
    def compute_endpoint(self):
        return self.layout.url(self.layout.api_port, "/v2.1")

    @property
    def placement_endpoint(self):
        return self.placement.endpoint if self.placement else None

    def banner(self):
        api = self.layout.url(self.layout.api_port)
        lines = [
            "OpenKeel Compute all-in-one is running.",
            f"  Compute API : {api}/  (v2.1 at {self.compute_endpoint})",
            f"  Placement   : {self.placement_endpoint}",
            f"  State dir   : {self.layout.state_dir}",
            f"  Images      : {self._images_banner()}",
            f"  Compute hosts: {', '.join(s.host for s in self.services if s.binary == 'nova-compute')}",
            "",
            "Talk to it with the openstack CLI (development auth, no Keystone):",
            "  export OS_AUTH_TYPE=none",
            f"  export OS_ENDPOINT={self.compute_endpoint}",
            "  export OS_COMPUTE_API_VERSION=2.104",
            *([f"  export OS_IMAGE_ENDPOINT_OVERRIDE={self.image_endpoint}",
               "  export OS_IDENTITY_ENDPOINT_OVERRIDE="
               f"{self.image_endpoint}/identity/v3/"]
              if self.image_endpoint else []),
            "  openstack server list",
            "",
            "Press Ctrl-C to stop.",
        ]
        return "\n".join(lines)

    def _images_banner(self):
        from keel.image import api as image_api
        if image_api.use_local(self.conf):
            served = f", served at {self.image_endpoint}" \
                if self.image_endpoint else ""
            return (f"local catalogue {self.conf.image_catalogue.path}"
                    f"{served} (keel manage --config-file "
                    f"{self.layout.config_file} image list)")
        return "Glance ([glance] options)"

    # -- stop ----------------------------------------------------------------
    def stop(self):
        self._stop.set()
        if self.api_server is not None:
            _bounded(self.api_server.stop, "api")
        if self.image_server is not None:
            _bounded(self.image_server.stop, "image endpoint")
        services = list(reversed(self.services))
        threads = [threading.Thread(
            target=_bounded, args=(s.stop, repr(s)), daemon=True)
            for s in services]
        for t in threads:
            t.start()
        for t in threads:
            t.join(STOP_TIMEOUT + 1)
        from keel.rpc import transport as rpc_transport
        _bounded(rpc_transport.cleanup, "transports")
        if self.placement is not None:
            _bounded(self.placement.stop, "placement")


def _bounded(fn, what, timeout=STOP_TIMEOUT):
    """Run ``fn`` but give up waiting after ``timeout`` seconds."""
    t = threading.Thread(target=fn, name=f"stop-{what}", daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        LOG.warning("%s did not stop within %s s; leaving it", what, timeout)
