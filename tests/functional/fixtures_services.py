"""A small cloud in one process for the host-level API resources.

API (development auth, called in process or over real HTTP), conductor,
scheduler and N simulated computes (fake driver) on SQLite (API database,
cell0, cell1) with oslo.messaging's in-process transport, reporting to the
real embedded Placement. Host names carry a random suffix because the
embedded Placement is shared by every test of the process.
"""
import contextlib
import time
import uuid

import pytest

from keel.api import deploy
from keel.cmd import compute as compute_cmd
from keel.cmd import manage_cell_v2
from keel.compute import rpcapi as compute_rpcapi
from keel.conductor import manager as conductor_manager
from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects
from keel import policy
from keel.rpc import transport as rpc_transport
from keel.rpc import versions
from keel.scheduler import manager as scheduler_manager
from keel import service
from tests.fixtures import http_app
from tests.fixtures.placement import shared_placement
from tests.unit.api.conftest import ensure_parsed

objects.register_all()

CELL1_UUID = "7d9d1c2e-3b4a-4f5e-8a6b-1c2d3e4f5a6b"
_OVERRIDES = [
    ("connection", "api_database"), ("connection", "database"),
    ("transport_url", None), ("rpc_response_timeout", None),
    ("auth_type", "placement"), ("endpoint_override", "placement"),
    ("auth_strategy", "api"), ("host", None), ("compute_driver", None),
]


def wait_for(predicate, timeout=20, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(interval)
    return predicate()


class Cloud:
    def __init__(self, hosts, services, app, placement_endpoint):
        self.hosts = hosts
        self.services = services
        self.app = app
        self.ctxt = keel_context.get_admin_context()
        from keel.clients import placement as pl
        self.placement = pl.PlacementClient(
            pl.adapter_for_endpoint(placement_endpoint))

    @property
    def scheduler(self):
        return next(s.manager for s in self.services
                    if s.binary == "nova-scheduler")

    def cell_ctxt(self):
        cell = objects.CellMapping.get_by_uuid(self.ctxt, CELL1_UUID)
        with keel_context.target_cell(self.ctxt, cell) as cctxt:
            return cctxt

    def nodes(self, host):
        return list(objects.ComputeNodeList.get_all_by_host(
            self.cell_ctxt(), host))

    def service(self, host, binary="nova-compute"):
        return objects.Service.get_by_args(self.cell_ctxt(), host, binary)


def _set(name, value, group=None):
    CONF.set_override(name, value, group=group)


def start_cloud(tmp, count=2):
    ensure_parsed()
    suffix = uuid.uuid4().hex[:6]
    base = f"fx{suffix}"
    placement = shared_placement()
    urls = {n: f"sqlite:///{tmp}/{n}.sqlite"
            for n in ("api", "cell0", "cell1")}
    _set("connection", urls["api"], "api_database")
    _set("connection", urls["cell1"], "database")
    _set("transport_url", "fake:/")
    _set("rpc_response_timeout", 10)
    _set("auth_type", "none", "placement")
    _set("endpoint_override", placement.endpoint, "placement")
    _set("auth_strategy", "keel-development", "api")
    _set("host", base)
    _set("compute_driver", "fake.FakeDriver")
    policy.reset()
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    for name in ("cell0", "cell1"):
        cell_models.Base.metadata.create_all(session.cell_engine(urls[name]))
    ctxt = keel_context.get_admin_context()
    objects.CellMapping(ctxt, uuid=objects.CellMapping.CELL0_UUID,
                        name="cell0", transport_url="fake:/",
                        database_connection=urls["cell0"]).create()
    objects.CellMapping(ctxt, uuid=CELL1_UUID, name="cell1",
                        transport_url="fake:/",
                        database_connection=urls["cell1"]).create()
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()
    rpc_transport.init()

    def svc(binary, topic, mgr):
        return service.Service(host=mgr.host, binary=binary, topic=topic,
                               manager=mgr, report_interval=1,
                               periodic_enable=False)
    services = [
        svc("nova-conductor", "conductor",
            conductor_manager.ConductorManager(base)),
        svc("nova-scheduler", "scheduler",
            scheduler_manager.SchedulerManager(base)),
    ]
    computes = compute_cmd.build_services(count)
    for compute in computes:
        compute.report_interval = 1
        compute.periodic_enable = False
    services += computes
    launcher = service.Launcher(services)
    launcher.start()
    hosts = [c.host for c in computes]
    cell_ctx = keel_context.get_admin_context()
    cell = objects.CellMapping.get_by_uuid(cell_ctx, CELL1_UUID)
    with keel_context.target_cell(cell_ctx, cell) as cctxt:
        assert wait_for(lambda: len(objects.ComputeNodeList.get_all(
            cctxt)) >= count), "computes did not create their nodes"
    manage_cell_v2.discover_hosts()
    app = deploy.deploy(CONF)
    return Cloud(hosts, services, app, placement.endpoint), launcher


@contextlib.contextmanager
def image_and_flavors(path, image_id, flavors):
    """For the block: a local image catalogue at ``path`` holding
    ``image_id`` (a small public qcow2, "cirros") and the public flavors
    ``flavors`` ({flavorid: root_gb}; 1 vCPU, 512 MB each)."""
    from keel.compute_api import server_create as create_api
    from keel.image import api as image_api

    CONF.set_override("path", str(path), "image_catalogue")
    image_api.reset()
    create_api.reset()
    try:
        ctxt = keel_context.get_admin_context()
        image_api.get_api().create(
            ctxt, {"id": image_id, "name": "cirros", "disk_format": "qcow2",
                   "container_format": "bare", "visibility": "public"},
            data=b"x" * 4096)
        for flavorid, disk in flavors.items():
            objects.Flavor(ctxt, flavorid=flavorid, name=flavorid, vcpus=1,
                           memory_mb=512, root_gb=disk, ephemeral_gb=0,
                           swap=0, is_public=True, disabled=False).create()
        yield
    finally:
        CONF.clear_override("path", "image_catalogue")
        image_api.reset()
        create_api.reset()


def stop_cloud(launcher):
    launcher.stop()
    rpc_transport.cleanup()
    compute_rpcapi.reset_globals()
    versions.reset_cache()
    session.reset()
    policy.reset()
    for name, group in _OVERRIDES:
        CONF.clear_override(name, group=group)


@pytest.fixture(scope="module")
def cloud(tmp_path_factory):
    cloud, launcher = start_cloud(tmp_path_factory.mktemp("cloud"))
    yield cloud
    stop_cloud(launcher)


@pytest.fixture
def http_endpoint(cloud):
    """The cloud's API over real HTTP (for openstacksdk / OSC)."""
    with http_app.served(cloud.app) as url:
        yield url + "/v2.1"
