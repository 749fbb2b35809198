"""Transports, the context on the wire, remote exceptions, cell routing."""
import oslo_messaging as messaging
from oslo_utils import uuidutils
import pytest

from keel import context as keel_context
from keel import exception
from keel import objects
from keel.rpc import router as rpc_router
from keel.rpc import serializer as rpc_serializer
from keel.rpc import transport as rpc_transport
from tests.unit.rpc.conftest import serve


class Echo:
    target = messaging.Target(version="1.0")

    def __init__(self, name="default"):
        self.name = name

    def whoami(self, context):
        return {"bus": self.name, "user_id": context.user_id,
                "project_id": context.project_id, "roles": context.roles,
                "request_id": context.request_id,
                "read_deleted": context.read_deleted,
                "is_admin": context.is_admin}

    def fail(self, context, uuid):
        raise exception.InstanceNotFound(instance_id=uuid)


def _client(transport=None):
    return rpc_transport.get_client(messaging.Target(topic="echo",
                                                     server="host1"),
                                    transport=transport)


def _ctx():
    return keel_context.RequestContext(user_id="u1", project_id="p1",
                                       roles=["member", "reader"],
                                       read_deleted="yes")


def test_context_travels_with_the_call(bus):
    serve(bus, "echo", [Echo()])
    ctxt = _ctx()
    got = _client().call(ctxt, "whoami")
    assert got == {"bus": "default", "user_id": "u1", "project_id": "p1",
                   "roles": ["member", "reader"],
                   "request_id": ctxt.request_id, "read_deleted": "yes",
                   "is_admin": False}


def test_serialized_context_has_novas_keys():
    ctxt = _ctx()
    wire = rpc_serializer.RequestContextSerializer().serialize_context(ctxt)
    for key in ("user_id", "project_id", "roles", "request_id", "is_admin",
                "read_deleted", "timestamp", "service_catalog",
                "global_request_id", "auth_token"):
        assert key in wire, key
    back = rpc_serializer.RequestContextSerializer().deserialize_context(wire)
    assert isinstance(back, keel_context.RequestContext)
    assert (back.user_id, back.project_id, back.request_id) == \
        ("u1", "p1", ctxt.request_id)


def test_keel_exceptions_are_reraised_as_themselves(bus):
    serve(bus, "echo", [Echo()])
    uuid = uuidutils.generate_uuid()
    with pytest.raises(exception.InstanceNotFound) as err:
        _client().call(_ctx(), "fail", uuid=uuid)
    assert uuid in str(err.value)


def test_call_to_absent_server_times_out(bus):
    with pytest.raises(messaging.MessagingTimeout):
        _client().prepare(timeout=0.5).call(_ctx(), "whoami")


def test_cell_transport_is_cached_per_url(bus):
    default = rpc_transport.get_transport()
    assert rpc_transport.cell_transport("fake:/") is default
    assert rpc_transport.cell_transport(None) is default
    cell = rpc_transport.cell_transport("fake://cell1/")
    assert cell is not default
    assert rpc_transport.cell_transport("fake://cell1/") is cell


def test_router_follows_the_targeted_cell(bus):
    # The fake driver joins every transport of a process to one bus, so
    # the routing shows in which transport the chosen client uses; the call
    # proves that client really delivers.
    cell_url = "fake://cell1/"
    cell_bus = rpc_transport.cell_transport(cell_url)
    serve(bus, "echo", [Echo("server")])
    router = rpc_router.ClientRouter(_client())
    ctxt = _ctx()
    assert router.client(ctxt) is router.default_client
    assert router.client(ctxt).transport is rpc_transport.get_transport()
    cell = objects.CellMapping(uuid=uuidutils.generate_uuid(), name="cell1",
                               transport_url=cell_url,
                               database_connection="sqlite://")
    with keel_context.target_cell(ctxt, cell) as cctxt:
        assert cctxt.mq_connection is cell_bus
        client = router.client(cctxt)
        assert client.transport is cell_bus
        assert router.client(cctxt) is client      # one client per cell
        assert client.call(cctxt, "whoami")["user_id"] == "u1"
    # The original context is untouched by targeting.
    assert router.client(ctxt) is router.default_client
