"""Opt-in event counters for bench/boot.py (SQL statements, RPC messages,
Placement requests), counted where they happen rather than estimated.

Enabled only by the environment variable ``KEEL_BENCH_COUNTERS=<dir>``:
every process then writes ``<dir>/<pid>.json`` (its command line and its
counts) once a second and at exit, and the benchmark sums the files. When
the variable is unset, ``ENABLED`` is False and the hooks below are never
installed: nothing on any request path costs anything.
"""
import atexit
import collections
import json
import os
import sys
import threading

PATH = os.environ.get("KEEL_BENCH_COUNTERS") or None
ENABLED = PATH is not None

_lock = threading.Lock()
_counts = collections.Counter()
_installed = set()
_writer = None


def incr(key, n=1):
    with _lock:
        _counts[key] += n


def snapshot():
    with _lock:
        return dict(_counts)


def dump():
    if not ENABLED:
        return
    data = {"pid": os.getpid(), "argv": sys.argv, "counts": snapshot()}
    target = os.path.join(PATH, f"{os.getpid()}.json")
    tmp = target + ".tmp"
    try:
        with open(tmp, "w") as fh:
            json.dump(data, fh)
        os.replace(tmp, target)
    except OSError:
        pass  # the bench's directory went away: nothing to report to


def _start_writer():
    """The periodic dump; once per process (a forked API worker restarts
    it because the thread does not survive fork)."""
    global _writer
    if _writer is not None and _writer[0] == os.getpid():
        return
    os.makedirs(PATH, exist_ok=True)

    def loop():
        while True:
            threading.Event().wait(1.0)
            dump()

    thread = threading.Thread(target=loop, name="bench-counters",
                              daemon=True)
    thread.start()
    _writer = (os.getpid(), thread)


def _after_fork():
    # A forked worker starts from its parent's counts: start from zero so
    # the parent's statements are not counted twice.
    global _writer
    with _lock:
        _counts.clear()
    _writer = None
    _start_writer()


def _once(name):
    with _lock:
        if name in _installed:
            return False
        _installed.add(name)
    if len(_installed) == 1:
        _start_writer()
        atexit.register(dump)
        os.register_at_fork(after_in_child=_after_fork)
    return True


def install_sql():
    """Count every statement any SQLAlchemy engine of this process sends,
    per database name (keel's and, in the all-in-one, Placement's)."""
    if not ENABLED or not _once("sql"):
        return
    import sqlalchemy as sa

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", _sql_hook)


def _sql_hook(conn, cursor, statement, parameters, context, executemany):
    db = conn.engine.url.database or ""
    incr("sql:" + os.path.basename(db).split(".")[0])
    incr("sql:" + (statement.split(None, 1) or ["?"])[0].upper())
    # The statement's shape (its first words and tables), to find
    # repeated reads: "sqltext:<db>:<text>".
    incr("sqltext:" + os.path.basename(db).split(".")[0][:12] + ":"
         + " ".join(statement.split())[:110])


def install_rpc():
    """Count oslo.messaging sends: casts, calls (each also gets a reply)
    and notifications, per RPC method."""
    if not ENABLED or not _once("rpc"):
        return
    from oslo_messaging import transport

    original_send = transport.Transport._send
    original_notify = transport.Transport._send_notification

    def _send(self, target, ctxt, message, wait_for_reply=None,
              *args, **kwargs):
        kind = "call" if wait_for_reply else "cast"
        if getattr(target, "fanout", False):
            kind = "fanout"
        method = message.get("method", "?") if isinstance(message, dict) \
            else "?"
        incr("rpc:" + kind)
        incr(f"rpc_method:{method}:{kind}")
        if method.startswith("object_"):   # which object, which method
            margs = message.get("args") or {}
            obj = margs.get("objname") or (margs.get("objinst") or {}).get(
                "nova_object.name", "?")
            incr(f"rpc_object:{obj}.{margs.get('objmethod', '?')}")
        return original_send(self, target, ctxt, message, wait_for_reply,
                             *args, **kwargs)

    def _send_notification(self, target, ctxt, message, *args, **kwargs):
        incr("rpc:notification")
        return original_notify(self, target, ctxt, message, *args, **kwargs)

    transport.Transport._send = _send
    transport.Transport._send_notification = _send_notification


def placement_request(method, url):
    """Called by keel's Placement client for each request it sends."""
    _once("placement")
    incr("placement:" + method)
    path = url.split("?", 1)[0].strip("/").split("/")
    shape = "/".join("{id}" if len(part) >= 32 else part for part in path)
    incr(f"placement_path:{method} /{shape}")
