"""A Neutron simulator on loopback, [neutron] pointed at it, and a cell
database for the instances whose info cache the network API writes."""
import pytest
from oslo_utils import uuidutils

from keel.clients import neutron as neutron_client
from keel.conf import CONF
from keel import context as keel_context
from keel.db.cell import models as cell_models
from keel.db import session
from keel import objects
from tests.fixtures import neutron_sim
from tests.unit.api.conftest import ensure_parsed

objects.register_all()

PROJECT = "6f70656e-6b65-656c-0000-000000000001"


@pytest.fixture
def sim():
    server = neutron_sim.NeutronSim().serve()
    CONF.set_override("endpoint_override", server.endpoint, group="neutron")
    CONF.set_override("http_retries", 0, group="neutron")
    neutron_client.reset()
    yield server
    server.stop()
    CONF.clear_override("endpoint_override", group="neutron")
    CONF.clear_override("http_retries", group="neutron")
    neutron_client.reset()


@pytest.fixture
def cell_db(tmp_path):
    ensure_parsed()  # policy checks (external networks) read the config
    CONF.set_override("connection", "sqlite:///%s/cell.db" % tmp_path,
                      group="database")
    session.reset()
    cell_models.Base.metadata.create_all(session.cell_engine())
    yield
    session.reset()
    CONF.clear_override("connection", group="database")


@pytest.fixture
def ctx(cell_db):
    return keel_context.RequestContext(user_id="u1", project_id=PROJECT)


@pytest.fixture
def make_instance(ctx):
    def _make(**kw):
        values = dict(uuid=uuidutils.generate_uuid(), project_id=PROJECT,
                      user_id="u1", host="host1", node="node1",
                      availability_zone="nova", vm_state="building",
                      memory_mb=512, vcpus=1, display_name="vm",
                      info_cache=objects.InstanceInfoCache(network_info=[]))
        values.update(kw)
        inst = objects.Instance(ctx, **values)
        inst.create()
        return inst
    return _make


def requests(*tuples):
    return objects.NetworkRequestList(objects=[
        objects.NetworkRequest(network_id=n, address=a, port_id=p)
        for n, a, p in tuples])
