"""CPU the conductor spends on the object calls a compute makes per boot
and per delete (object_action / object_class_action_versions).

One process: conductor, scheduler and simulated computes (fake driver,
in-process transport, embedded Placement) as the functional tests run
them, with cell1 on MariaDB (default) or SQLite. Instances are created
as the conductor leaves them and built through the compute RPC API, then
terminated, as tests/functional/compute does. The conductor's RPC
dispatch of every object call is timed with the thread's CPU clock
(deserialising the arguments, the method, serialising the result), so
the other services of the process do not count.

    .venv/bin/python bench/object_calls.py -n 40 [--db sqlite]
"""
import argparse
import collections
import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from oslo_messaging.rpc import dispatcher as rpc_dispatcher  # noqa: E402

_phase = {"name": "setup"}
_local = threading.local()
_profile = None
_profile_lock = threading.Lock()
_cpu = collections.defaultdict(lambda: [0, 0.0])
_lock = threading.Lock()


def _call_name(method, args):
    if method == "object_action":
        prim = args["objinst"]
        return "%s.%s" % (prim.get("nova_object.name", "?"),
                          args["objmethod"])
    if method.startswith("object_class_action"):
        return "%s.%s" % (args["objname"], args["objmethod"])
    return method


def _install_timer():
    real = rpc_dispatcher.RPCDispatcher._do_dispatch

    def timed(self, endpoint, method, ctxt, args):
        inner = getattr(endpoint, "_endpoint", endpoint)
        if type(inner).__name__ != "ConductorManager":
            return real(self, endpoint, method, ctxt, args)
        profiling = _profile is not None and _phase["name"] in (
            "boot", "delete") and _profile_lock.acquire(blocking=False)
        start = time.thread_time()
        _local.direct = True
        if profiling:
            _profile.enable()
        try:
            return real(self, endpoint, method, ctxt, args)
        finally:
            if profiling:
                _profile.disable()
                _profile_lock.release()
            _local.direct = False
            spent = time.thread_time() - start
            key = (_phase["name"], _call_name(method, args))
            with _lock:
                _cpu[key][0] += 1
                _cpu[key][1] += spent

    rpc_dispatcher.RPCDispatcher._do_dispatch = timed


class _ComputeIndirection(object):
    """The objects' indirection API of a compute host, for the threads of
    the simulated computes only: the conductor's dispatch and the
    driving (main) thread use the database directly."""

    def __init__(self):
        from keel.conductor import rpcapi as conductor_rpcapi
        self._api = conductor_rpcapi.ConductorAPI()

    def __bool__(self):
        return not (getattr(_local, "direct", False) or
                    threading.current_thread() is threading.main_thread())

    def __getattr__(self, name):
        return getattr(self._api, name)


def _start(tmp, cell1_url):
    """tests.functional.fixtures_services.start_cloud with cell1's
    database at ``cell1_url``."""
    from tests.functional import fixtures_services as fx
    from keel.db import session

    real_engine = session.cell_engine

    def cell_engine(url=None):
        if url and url.endswith("/cell1.sqlite"):
            url = cell1_url
        return real_engine(url)

    if cell1_url:
        session.cell_engine = cell_engine
        from keel import objects
        real_create = objects.CellMapping.create

        def create(self):
            if self.name == "cell1":
                self.database_connection = cell1_url
            return real_create(self)
        objects.CellMapping.create = create
        fx._set("connection", cell1_url, "database")
        real_set = fx._set

        def _set(name, value, group=None):
            if (name, group) == ("connection", "database"):
                value = cell1_url
            real_set(name, value, group)
        fx._set = _set
    cloud, launcher = fx.start_cloud(tmp)
    from keel.objects import base as objects_base
    objects_base.KeelObject.indirection_api = _ComputeIndirection()
    return cloud, launcher


def _boot_all(cloud, n):
    from tests.functional.compute import helpers as h
    from tests.functional.fixtures_services import wait_for
    ctxt = h.user_ctxt()
    insts = []
    for i in range(n):
        host = cloud.hosts[i % len(cloud.hosts)]
        inst = h.create_instance(cloud, ctxt)
        h.allocate(cloud, ctxt, inst, host)
        insts.append((inst, host))
    _phase["name"] = "boot"
    for inst, host in insts:
        h.build(ctxt, inst, host)
        h.wait_state(ctxt, inst, "active", timeout=60)
        # The build's event is finished just after the instance is ACTIVE.
        wait_for(lambda: h.events(ctxt, inst)[0][
            "compute__do_build_and_run_instance"].finish_time, timeout=10,
            interval=0.01)
    _phase["name"] = "between"
    return ctxt, [i for i, _ in insts]


def _delete_all(cloud, insts):
    from keel.compute import rpcapi as compute_rpcapi
    from keel import objects
    from tests.functional.compute import helpers as h
    from tests.functional.fixtures_services import wait_for

    ready = []
    for inst in insts:
        ctxt = h.user_ctxt()
        objects.InstanceAction.action_start(ctxt, inst.uuid, "delete",
                                            want_result=False)
        got = h.reload(ctxt, inst, expected_attrs=["info_cache"])
        got._context = ctxt
        got.task_state = "deleting"
        got.save()
        ready.append((ctxt, got))
    _phase["name"] = "delete"
    for ctxt, inst in ready:
        compute_rpcapi.ComputeAPI().terminate_instance(
            ctxt, inst, objects.BlockDeviceMappingList(objects=[]))
        assert wait_for(lambda: h.reload(ctxt, inst).deleted, timeout=60,
                        interval=0.02), inst.uuid
        # The terminate's action event is finished just after the row's
        # soft delete: wait for it too, or the last one's conductor call
        # may meet a conductor already stopped (a MessagingTimeout at
        # shutdown) and its CPU miss the delete phase.
        seen = ctxt.elevated(read_deleted="yes")
        assert wait_for(lambda: h.events(seen, inst)[0][
            "compute_terminate_instance"].finish_time, timeout=10,
            interval=0.01), inst.uuid
    _phase["name"] = "after"


def _report(n):
    for phase in ("boot", "delete"):
        rows = [(k[1], c, s) for k, (c, s) in _cpu.items() if k[0] == phase]
        total = sum(s for _, _, s in rows)
        beats = sum(s for name, _, s in rows if name == "Service.save")
        print("%s: %.2f ms conductor CPU per %s in object calls, %.2f "
              "without the services' heartbeats (Service.save)"
              % (phase, 1000 * total / n, phase, 1000 * (total - beats) / n))
        for name, count, spent in sorted(rows, key=lambda r: -r[2]):
            print("  %-48s %5.2f calls  %6.3f ms  (%.3f ms/call)" % (
                name, count / n, 1000 * spent / n, 1000 * spent / count))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=40)
    parser.add_argument("--db", choices=("mariadb", "sqlite"),
                        default="mariadb")
    parser.add_argument("--profile", metavar="FILE",
                        help="cProfile the object calls (pstats file)")
    args = parser.parse_args()

    from tests.fixtures import databases
    from tests.functional import fixtures_services as fx

    url = databases.create_mariadb("objbench") if args.db == "mariadb" \
        else None
    _install_timer()
    tmp = tempfile.mkdtemp(prefix="objcalls")
    cloud, launcher = _start(tmp, url)
    try:
        # Warm-up: first calls pay imports and statement compilation.
        ctxt, insts = _boot_all(cloud, 4)
        _delete_all(cloud, insts)
        _cpu.clear()
        if args.profile:
            import cProfile
            global _profile
            _profile = cProfile.Profile(time.thread_time)
        ctxt, insts = _boot_all(cloud, args.n)
        _delete_all(cloud, insts)
        _report(args.n)
        if _profile is not None:
            _profile.dump_stats(args.profile)
    finally:
        from keel.objects import base as objects_base
        objects_base.KeelObject.indirection_api = None
        fx.stop_cloud(launcher)
        if url:
            databases.drop(url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
