"""Real API, cell0 and cell1 databases for the conductor workflows (SQLite;
KEEL_OBJECTS_TEST_BACKEND=mysql or postgresql runs the same tests on the
machine's servers); the scheduler, the compute and Placement are small
recording stand-ins so each test decides what they answer (the functional
tests in tests/functional/boot/ run the real ones)."""
import os
import uuid

from oslo_serialization import jsonutils
import pytest

from keel.conf import CONF
from keel import context as keel_context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import exception
from keel import objects
from tests.fixtures import databases
from tests.unit.api.conftest import ensure_parsed

objects.register_all()

BACKEND = os.environ.get("KEEL_OBJECTS_TEST_BACKEND", "sqlite")
CELL1_UUID = "1f3c5e7a-9b2d-4f6a-8c0e-2a4b6c8d0e1f"
HOSTS = ("host-a", "host-b", "host-c")


class FakeScheduler:
    def __init__(self):
        self.answer = None
        self.calls = []

    def select_destinations(self, ctxt, spec, uuids, return_objects=False,
                            return_alternates=False):
        self.calls.append((spec, list(uuids)))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer(uuids) if callable(self.answer) else self.answer


class FakeCompute:
    def __init__(self):
        self.casts = []
        self.fail = None

    def build_and_run_instance(self, ctxt, **kwargs):
        if self.fail is not None:
            raise self.fail
        self.casts.append(kwargs)


class FakeReport:
    """Allocations by consumer; ``full`` hosts refuse claims."""

    def __init__(self):
        self.allocs = {}
        self.full = set()
        self.deleted = []

    def get_allocs_for_consumer(self, ctxt, consumer):
        if consumer in self.allocs:
            return {"allocations": self.allocs[consumer],
                    "consumer_generation": 1}
        return {"allocations": {}}

    def put_allocations(self, ctxt, consumer, allocations, project_id,
                        user_id, consumer_generation):
        if set(allocations) & self.full:
            return False
        if consumer in self.allocs and consumer_generation is None:
            raise exception.AllocationUpdateFailed(
                consumer_uuid=consumer, error="consumer generation conflict")
        self.allocs[consumer] = allocations
        return True

    def delete_allocation_for_instance(self, ctxt, consumer, force=False):
        self.deleted.append(consumer)
        return self.allocs.pop(consumer, None) is not None


def selection(host, areq=True):
    rp = "rp-" + host
    return objects.Selection(
        compute_node_uuid=str(uuid.uuid5(uuid.NAMESPACE_URL, host)),
        service_host=host, nodename=host, cell_uuid=CELL1_UUID,
        limits=objects.SchedulerLimits(memory_mb=4096),
        allocation_request=jsonutils.dumps(
            {"allocations": {rp: {"resources": {"MEMORY_MB": 512}}}})
        if areq else None,
        allocation_request_version="1.36", availability_zone="az-" + host)


@pytest.fixture(scope="module")
def cells(tmp_path_factory):
    # One set of databases per module (creating them is most of a test's
    # time); each test works in a project of its own.
    tmp_path = tmp_path_factory.mktemp("conductor")
    ensure_parsed()
    urls = {n: databases.create(BACKEND, prefix="keel_cond" + n,
                                tmp_path=tmp_path)
            for n in ("api", "cell0", "cell1")}
    CONF.set_override("connection", urls["api"], group="api_database")
    CONF.set_override("connection", urls["cell1"], group="database")
    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    for name in ("cell0", "cell1"):
        cell_models.Base.metadata.create_all(session.cell_engine(urls[name]))
    admin = keel_context.get_admin_context()
    cell0 = objects.CellMapping(admin, uuid=objects.CellMapping.CELL0_UUID,
                                name="cell0", transport_url="none:///",
                                database_connection=urls["cell0"])
    cell0.create()
    cell1 = objects.CellMapping(admin, uuid=CELL1_UUID, name="cell1",
                                transport_url="none:///",
                                database_connection=urls["cell1"])
    cell1.create()
    for host in HOSTS:
        objects.HostMapping(admin, host=host, cell_mapping=cell1).create()
    yield {"cell0": cell0, "cell1": cell1}
    session.reset()
    CONF.clear_override("connection", group="api_database")
    CONF.clear_override("connection", group="database")
    for url in urls.values():
        databases.drop(url)


@pytest.fixture
def ctxt(cells):
    from tests.functional.boot import helpers
    return keel_context.RequestContext(
        user_id=helpers.USER, project_id=uuid.uuid4().hex, is_admin=False,
        roles=["member"])


@pytest.fixture
def deps():
    return FakeScheduler(), FakeCompute(), FakeReport()


def in_cell(ctxt, cell, instance_uuid, **kw):
    """The instance as its cell database has it (InstanceNotFound if not)."""
    with keel_context.target_cell(ctxt, cell) as cctxt:
        return objects.Instance.get_by_uuid(cctxt, instance_uuid, **kw)
