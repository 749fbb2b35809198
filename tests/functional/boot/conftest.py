"""The boot tests' cloud: API, conductor, scheduler and two fake-driver
computes in one process with the real Placement (see fixtures_services)."""
import time
import uuid

import pytest
import requests

from keel.conductor import rpcapi as conductor_rpcapi
from keel import context as keel_context
from keel import objects
from tests.functional.boot import helpers
from tests.functional.fixtures_services import CELL1_UUID
from tests.functional.fixtures_services import cloud  # noqa: F401
from tests.functional.fixtures_services import http_endpoint  # noqa: F401
from tests.functional.fixtures_services import wait_for


@pytest.fixture
def ctxt(cloud):  # noqa: F811
    # A project of its own per test: the servers of earlier tests count
    # against the quota the conductor re-checks.
    return keel_context.RequestContext(
        user_id=helpers.USER, project_id=uuid.uuid4().hex, is_admin=False,
        roles=["member", "reader"])


@pytest.fixture
def boot(ctxt):
    """Write a boot request and cast it, as POST /servers does."""
    def _boot(**kw):
        boots, kwargs = helpers.boot_request(ctxt, **kw)
        conductor_rpcapi.ComputeTaskAPI().schedule_and_build_instances(
            ctxt, **kwargs)
        return boots
    return _boot


def cell_of(ctxt, instance_uuid):
    mapping = objects.InstanceMapping.get_by_instance_uuid(ctxt,
                                                           instance_uuid)
    return mapping.cell_mapping


def instance(ctxt, instance_uuid, **kw):
    """The instance in whatever cell it is mapped to, or None."""
    cell = cell_of(ctxt, instance_uuid)
    if cell is None:
        return None
    with keel_context.target_cell(ctxt, cell) as cctxt:
        return objects.Instance.get_by_uuid(cctxt, instance_uuid, **kw)


def settled(ctxt, instance_uuid, states=("active", "error"), timeout=20):
    """Wait until the instance reaches one of ``states``; return it."""
    def check():
        try:
            inst = instance(ctxt, instance_uuid)
        except Exception:  # noqa: BLE001 - not created yet
            return None
        return inst if inst is not None and inst.vm_state in states \
            else None
    return wait_for(check, timeout=timeout, interval=0.05)


def allocations(cloud, instance_uuid):  # noqa: F811
    return cloud.placement.get_allocations(None, instance_uuid)[
        "allocations"]


def compute_driver(cloud, host):  # noqa: F811
    return next(s.manager.driver for s in cloud.services
                if s.binary == "nova-compute" and s.host == host)


def api_get(ctxt, endpoint, path, version="2.96"):
    return requests.get(endpoint + path, timeout=10, headers={
        "X-Auth-Token": "%s:%s" % (ctxt.user_id, ctxt.project_id),
        "OpenStack-API-Version": "compute " + version})


def api_server(ctxt, endpoint, instance_uuid):
    """GET /servers/{id}'s server. A cell read that fails under load (SQLite
    busy on this shared machine) shows as the down-cell record (UNKNOWN):
    ask again a few times before judging."""
    for _ in range(10):
        resp = api_get(ctxt, endpoint, "/servers/%s" % instance_uuid)
        assert resp.status_code == 200, resp.text
        server = resp.json()["server"]
        if server.get("status") != "UNKNOWN":
            return server
        time.sleep(0.2)
    return server


__all__ = ["CELL1_UUID", "cloud", "http_endpoint"]
