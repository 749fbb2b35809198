"""The request context of a received AMQP message copied once, not twice.

oslo.messaging's AMQP listener unpacks a message's ``_context_*`` keys into
an RpcContext and hands the RPC server ``ctxt.to_dict()``, which is
``copy.deepcopy`` of those values (roles, service catalog, ...). They were
decoded from the message's JSON a moment before and the RpcContext is
dropped right after, so nobody else holds them: the deep copy protects
nothing and cost about as much as decoding the whole message (~4% of an
RPC server's CPU per request). ``install()`` makes that ``to_dict`` a
shallow copy; ``deepcopy()`` still copies deeply. The server's serializer
then builds its own RequestContext from the values, as before.

Only the oslo.messaging code this was written against is patched (an
RpcContext keeping its values in ``values`` and ``to_dict`` deep-copying
them); another version is left alone.
"""
import copy

from oslo_messaging._drivers import amqp as rpc_amqp
from oslo_messaging._drivers import common as rpc_common

_saved = {}


def _shallow_to_dict(self):
    return dict(self.values)


def _deepcopy(self):
    # oslo's RpcContext.deepcopy, on a deep copy of the values as before.
    values = copy.deepcopy(self.values)
    values["conf"] = self.conf
    values["msg_id"] = self.msg_id
    values["reply_q"] = self.reply_q
    return self.__class__(**values)


def _compatible():
    cls = getattr(rpc_amqp, "RpcContext", None)
    if cls is None or not issubclass(cls, rpc_common.CommonRpcContext):
        return False
    to_dict = getattr(cls.to_dict, "__code__", None)
    return (to_dict is not None and "to_dict" not in cls.__dict__
            and {"deepcopy", "values"} <= set(to_dict.co_names)
            and {"msg_id", "reply_q"} <= set(cls.__init__.__code__.co_names))


def install():
    """Patch RpcContext (idempotent)."""
    if _saved or not _compatible():
        return
    cls = rpc_amqp.RpcContext
    _saved["deepcopy"] = cls.__dict__.get("deepcopy")
    cls.to_dict = _shallow_to_dict
    cls.deepcopy = _deepcopy
    _saved["installed"] = True


def uninstall():
    if not _saved:
        return
    cls = rpc_amqp.RpcContext
    del cls.to_dict
    if _saved["deepcopy"] is None:
        del cls.deepcopy
    else:
        cls.deepcopy = _saved["deepcopy"]
    _saved.clear()
