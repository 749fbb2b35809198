"""sitecustomize of bench/floor.py's capture deployment (copied there as
``sitecustomize.py``; it does nothing unless KEEL_FLOOR_CAPTURE names a
directory). It only records, one JSON line per event in
``<dir>/<pid>.jsonl``: every oslo.messaging message as serialised for the
wire (call, reply, cast, fanout, notification; its JSON and size) and every
Placement request keel's clients send through keystoneauth (method, URL,
microversion, JSON body, status). keel/ is not changed.
"""
import json
import os
import sys
import threading
import time

_DIR = os.environ.get("KEEL_FLOOR_CAPTURE")


def _install():
    from oslo_messaging import transport as om_transport
    from oslo_messaging._drivers import amqpdriver
    from oslo_messaging._drivers import common as rpc_common
    from keystoneauth1 import session as ks_session
    local = threading.local()
    lock = threading.Lock()
    state = {}

    def write(rec):
        rec["t"] = time.time()
        rec["who"] = " ".join(sys.argv)[-60:]
        line = json.dumps(rec, default=str)
        with lock:
            fh = state.get(os.getpid())
            if fh is None:
                fh = state[os.getpid()] = open(os.path.join(
                    _DIR, "%d.jsonl" % os.getpid()), "a", buffering=1)
            fh.write(line + "\n")

    orig_serialize = rpc_common.serialize_msg

    def serialize_msg(raw):
        out = orig_serialize(raw)
        try:
            size = len(out[rpc_common._MESSAGE_KEY])
            if "method" in raw:
                kind = "call" if raw.get("_reply_q") else (
                    "fanout" if getattr(local, "fanout", False) else "cast")
                write({"kind": kind, "method": raw["method"], "size": size,
                       "topic": getattr(local, "topic", None), "msg": raw})
            elif "event_type" in raw:
                write({"kind": "notification", "method": raw["event_type"],
                       "size": size, "topic": getattr(local, "ntopic", None),
                       "msg": raw})
            elif "result" in raw or "failure" in raw:
                write({"kind": "reply",
                       "method": getattr(local, "replying", None),
                       "size": size, "msg": raw})
        except Exception:
            pass
        return out

    rpc_common.serialize_msg = serialize_msg
    orig_send = om_transport.Transport._send

    def _send(self, target, *args, **kwargs):
        local.fanout = bool(getattr(target, "fanout", False))
        local.topic = getattr(target, "topic", None)
        return orig_send(self, target, *args, **kwargs)

    om_transport.Transport._send = _send
    orig_notify = om_transport.Transport._send_notification

    def _send_notification(self, target, *args, **kwargs):
        local.ntopic = getattr(target, "topic", None)
        return orig_notify(self, target, *args, **kwargs)

    om_transport.Transport._send_notification = _send_notification
    orig_reply = amqpdriver.AMQPIncomingMessage._send_reply

    def _send_reply(self, *args, **kwargs):
        local.replying = (getattr(self, "message", None) or {}).get("method")
        return orig_reply(self, *args, **kwargs)

    amqpdriver.AMQPIncomingMessage._send_reply = _send_reply
    orig_request = ks_session.Session.request

    def request(self, url, method, *args, **kwargs):
        resp = orig_request(self, url, method, *args, **kwargs)
        try:
            headers = kwargs.get("headers") or {}
            write({"kind": "placement", "method": method, "url": url,
                   "version": headers.get("OpenStack-API-Version"),
                   "json": kwargs.get("json"),
                   "status": getattr(resp, "status_code", None)})
        except Exception:
            pass
        return resp

    ks_session.Session.request = request


if _DIR:
    try:
        _install()
    except Exception as exc:  # the deployment must start regardless
        sys.stderr.write("floor capture hook not installed: %r\n" % (exc,))
