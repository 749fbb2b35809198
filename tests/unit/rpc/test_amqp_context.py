"""keel.rpc.amqp_context: the AMQP listener's context values are copied
once (shallow) instead of deep-copied; what the RPC server receives is the
same."""
from oslo_messaging._drivers import amqp as rpc_amqp
from oslo_messaging._drivers import amqpdriver

from keel.rpc import amqp_context
from keel.rpc import transport  # noqa: F401 - installs the patch
from keel.rpc import serializer as rpc_serializer
from keel import context as keel_context


def _wire_message(ctxt):
    msg = {"_context_" + k: v for k, v in
           rpc_serializer.RequestContextSerializer().serialize_context(
               ctxt).items()}
    msg.update(method="ping", args={"arg": 1}, version="1.1",
               _msg_id="m1", _reply_q="reply_q1", _unique_id="u1")
    return msg


def _ctxt():
    ctxt = keel_context.RequestContext(
        user_id="u1", project_id="p1", roles=["member", "reader"],
        request_id="req-1")
    ctxt.service_catalog = [{"type": "image", "endpoints": [{"url": "x"}]}]
    return ctxt


def test_installed_by_the_transport_module():
    assert rpc_amqp.RpcContext.to_dict is amqp_context._shallow_to_dict


def test_server_gets_the_context_it_would_get_with_a_deep_copy():
    ctxt = _ctxt()
    unpacked = rpc_amqp.unpack_context(_wire_message(ctxt))
    amqp_context.uninstall()
    try:
        deep = rpc_amqp.RpcContext.to_dict(unpacked)
    finally:
        amqp_context.install()
    shallow = unpacked.to_dict()
    assert shallow == deep
    assert shallow is not unpacked.values
    back = rpc_serializer.RequestContextSerializer().deserialize_context(
        shallow)
    assert back.to_dict() == ctxt.to_dict()
    assert (unpacked.msg_id, unpacked.reply_q) == ("m1", "reply_q1")


def test_listener_hands_the_server_the_message_context():
    listener = amqpdriver.RpcAMQPListener.__new__(amqpdriver.RpcAMQPListener)
    listener.msg_id_cache = rpc_amqp._MsgIdCache()
    listener.incoming = []
    listener._obsolete_reply_queues = amqpdriver.ObsoleteReplyQueuesCache()
    listener._message_operations_handler = None

    class _Msg(dict):
        def acknowledge(self):
            pass

    ctxt = _ctxt()
    amqpdriver.RpcAMQPListener.__call__(listener, _Msg(_wire_message(ctxt)))
    (incoming,) = listener.incoming
    assert incoming.ctxt == ctxt.to_dict() | {"client_timeout": None}
    assert incoming.msg_id == "m1" and incoming.reply_q == "reply_q1"
    assert incoming.message == {"method": "ping", "args": {"arg": 1},
                                "version": "1.1"}


def test_deepcopy_still_copies_deeply():
    unpacked = rpc_amqp.unpack_context(_wire_message(_ctxt()))
    unpacked.values["conf"] = None
    copied = unpacked.deepcopy()
    assert copied.values == unpacked.values
    assert copied.roles is not unpacked.roles
    assert copied.service_catalog[0] is not unpacked.service_catalog[0]
    assert (copied.msg_id, copied.reply_q) == ("m1", "reply_q1")


def test_uninstall_restores_oslo():
    amqp_context.uninstall()
    try:
        assert "to_dict" not in rpc_amqp.RpcContext.__dict__
        unpacked = rpc_amqp.unpack_context(_wire_message(_ctxt()))
        values = unpacked.to_dict()
        assert values["roles"] is not unpacked.values["roles"]
    finally:
        amqp_context.install()
    assert rpc_amqp.RpcContext.to_dict is amqp_context._shallow_to_dict
