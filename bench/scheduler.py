"""One scheduling decision among many hosts (default 1,000).

Prints figures and ratios; it asserts nothing (timed tests are not tests).

    .venv/bin/python bench/scheduler.py [--hosts 1000] [--decisions 50]
                                        [--state DIR] [--profile]

``--state DIR`` keeps the databases in DIR and reuses them on the next run
with the same ``--hosts`` (setting up 1,000 hosts takes a minute or more).

A real Placement (in this process, SQLite, over loopback HTTP) holds one
resource provider per host with VCPU/MEMORY_MB/DISK_GB inventory; the cell
database holds the matching compute nodes and services.  Each decision is
``Scheduler.select_destinations`` for one instance with alternates, the
claim included (the allocation is removed again afterwards, outside the
timing).  The target (issue 4) is 20 ms of *scheduler* time: the wall time
minus the time spent waiting on Placement's answers, which is printed
separately.
"""
import argparse
import cProfile
import logging
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TARGET_MS = 20.0
CELL_UUID = "5e1c2f0a-7b3d-4c8e-9a1f-0b2c3d4e5f60"


def _setup_conf(tmp, placement_endpoint):
    from keel.cmd import common
    from keel.conf import CONF

    common.parse_args([], "bench-scheduler")
    CONF.set_override("connection", f"sqlite:///{tmp}/api.sqlite",
                      "api_database")
    CONF.set_override("connection", f"sqlite:///{tmp}/cell1.sqlite",
                      "database")
    CONF.set_override("auth_type", "none", "placement")
    CONF.set_override("endpoint_override", placement_endpoint, "placement")
    CONF.set_override("track_instance_changes", False, "filter_scheduler")


def _create_databases(tmp):
    from keel import context as keel_context
    from keel.db.api import models as api_models
    from keel.db.cell import models as cell_models
    from keel.db import session
    from keel import objects

    session.reset()
    api_models.Base.metadata.create_all(session.api_engine())
    cell_url = f"sqlite:///{tmp}/cell1.sqlite"
    cell_models.Base.metadata.create_all(session.cell_engine(cell_url))
    ctxt = keel_context.get_admin_context()
    objects.CellMapping(ctxt, uuid=CELL_UUID, name="cell1",
                        transport_url="fake:/",
                        database_connection=cell_url).create()
    return ctxt


def _populate(ctxt, placement, hosts):
    """``hosts`` compute nodes + services in the cell, providers with
    inventory in Placement, host mappings in the API database."""
    from keel.db.cell import models as cell_models
    from keel.db import session
    from keel import objects

    cell = objects.CellMapping.get_by_uuid(ctxt, CELL_UUID)
    now = time.strftime("%Y-%m-%d %H:%M:%S")
    node_uuids = []
    with session.cell_writer(ctxt) as db:
        for i in range(hosts):
            host = f"bench-host-{i:04d}"
            svc = cell_models.Service(
                host=host, binary="nova-compute", topic="compute",
                report_count=1, disabled=False, version=74,
                uuid=str(uuid.uuid4()), deleted=0)
            db.add(svc)
            db.flush()
            node = str(uuid.uuid4())
            node_uuids.append(node)
            db.add(cell_models.ComputeNode(
                uuid=node, service_id=svc.id, host=host,
                hypervisor_hostname=host, vcpus=64, memory_mb=262144,
                local_gb=2000, vcpus_used=0, memory_mb_used=512,
                local_gb_used=0, hypervisor_type="fake",
                hypervisor_version=1000, cpu_info="{}",
                running_vms=0, free_ram_mb=262144 - 512,
                free_disk_gb=2000, current_workload=0,
                disk_available_least=2000,
                cpu_allocation_ratio=4.0, ram_allocation_ratio=1.0,
                disk_allocation_ratio=1.0, stats="{}",
                supported_instances='[["x86_64", "fake", "hvm"]]',
                deleted=0))
    for i in range(hosts):
        objects.HostMapping(ctxt, host=f"bench-host-{i:04d}",
                            cell_mapping=cell).create()
    inventory = {
        "VCPU": {"total": 64, "allocation_ratio": 4.0, "reserved": 0},
        "MEMORY_MB": {"total": 262144, "allocation_ratio": 1.0,
                      "reserved": 512},
        "DISK_GB": {"total": 2000, "allocation_ratio": 1.0, "reserved": 0},
    }
    for i, node in enumerate(node_uuids):
        placement.create_provider(None, node, f"bench-host-{i:04d}")
        placement.put_inventories(None, node, inventory, 0)
    return node_uuids


def _heartbeat(ctxt):
    """Every compute service reports now: a setup slower than
    ``service_down_time`` (a loaded machine) must not leave them down."""
    import datetime

    import sqlalchemy as sa

    from keel.db.cell import models as cell_models
    from keel.db import session

    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    with session.cell_writer(ctxt) as db:
        db.execute(sa.update(cell_models.Service).values(last_seen_up=now))


class PlacementTimer:
    """Wraps the Placement client's ``request`` to add up waiting time."""

    def __init__(self, client):
        self.client = client
        self.spent = 0.0
        self.cpu = 0.0        # this thread's CPU inside the requests
        self.calls = 0
        original = client.request

        def timed(*args, **kwargs):
            t0, c0 = time.perf_counter(), time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.spent += time.perf_counter() - t0
                self.cpu += time.thread_time() - c0
                self.calls += 1
        client.request = timed


def _spec(ctxt):
    from keel import objects

    flavor = objects.Flavor(flavorid="bench", name="bench", vcpus=2,
                            memory_mb=2048, root_gb=20, ephemeral_gb=0,
                            swap=0, extra_specs={})
    return objects.RequestSpec.from_components(
        ctxt, str(uuid.uuid4()),
        {"disk_format": "qcow2", "properties": {}}, flavor, None, None,
        {"scheduler_hints": {}}, None, None,
        project_id="bench", user_id="bench")


def _p95(values):
    return sorted(values)[int(0.95 * (len(values) - 1))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--decisions", type=int, default=50)
    parser.add_argument("--state", help="keep (and reuse) the databases "
                        "in this directory")
    parser.add_argument("--profile", action="store_true",
                        help="print the scheduler's top functions by time")
    args = parser.parse_args()

    from keel.clients import report
    from keel import objects
    from keel.scheduler import driver

    objects.register_all()
    if args.state:
        tmp = os.path.abspath(args.state)
        os.makedirs(tmp, exist_ok=True)
    else:
        tmp = tempfile.mkdtemp(prefix="keel-bench-sched-")
    ready = os.path.join(tmp, "ready")
    reuse = os.path.exists(ready) and open(ready).read() == str(args.hosts)
    if args.state and not reuse:
        for name in ("api", "cell1", "placement"):
            if os.path.exists(f"{tmp}/{name}.sqlite"):
                os.remove(f"{tmp}/{name}.sqlite")
        if os.path.exists(ready):
            os.remove(ready)
    # Placement in its own process, as deployed: in this one its threads
    # would compete with the scheduler for the GIL and count as ours.
    server = subprocess.Popen(
        [sys.executable, "-m", "keel.embedded.placement", "--db-url",
         f"sqlite:///{tmp}/placement.sqlite"], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True)
    endpoint = server.stdout.readline().strip().split("=", 1)[1]
    try:
        _setup_conf(tmp, endpoint)
        if reuse:
            from keel import context as keel_context
            from keel.db import session

            session.reset()
            ctxt = keel_context.get_admin_context()
        else:
            ctxt = _create_databases(tmp)
        ctxt.project_id, ctxt.user_id = "bench", "bench"
        reportclient = report.ReportClient()
        if reuse:
            print(f"setup: reusing {args.hosts} hosts from {tmp}")
        else:
            t0 = time.perf_counter()
            _populate(ctxt, reportclient.placement, args.hosts)
            with open(ready, "w") as f:
                f.write(str(args.hosts))
            print(f"setup: {args.hosts} hosts in Placement and the cell "
                  f"database in {time.perf_counter() - t0:.1f} s")
        _heartbeat(ctxt)

        logging.getLogger().setLevel(logging.WARNING)
        scheduler = driver.Scheduler(report_client=reportclient)
        # As a started scheduler service does (keel.service.serve).
        from keel import gctune
        gctune.settle()
        profiler = cProfile.Profile() if args.profile else None
        timer = PlacementTimer(reportclient.placement)
        walls, waits, cpus, http_cpus = [], [], [], []
        for i in range(args.decisions + 3):
            spec = _spec(ctxt)
            inst = str(uuid.uuid4())
            _heartbeat(ctxt)    # a slow run must not see the services go down
            timer.spent, timer.cpu, timer.calls = 0.0, 0.0, 0
            if profiler and i >= 3:
                profiler.enable()
            t0, c0 = time.perf_counter(), time.thread_time()
            picked = scheduler.select_destinations(ctxt, spec, [inst],
                                                   return_alternates=True)
            wall = time.perf_counter() - t0
            cpu = time.thread_time() - c0
            if profiler:
                profiler.disable()
            # Read before the clean-up below, whose request is not ours.
            calls, spent, http_cpu = timer.calls, timer.spent, timer.cpu
            reportclient.placement.delete_allocations(ctxt, inst)
            assert picked and picked[0], "no host picked"
            if i >= 3:   # the first decisions fill the host-state cache
                walls.append(wall)
                waits.append(spent)
                cpus.append(cpu)
                http_cpus.append(http_cpu)
        own = [w - p for w, p in zip(walls, waits)]
        med_own = statistics.median(own) * 1e3
        print(f"decisions: {args.decisions} among {args.hosts} hosts, "
              f"{calls} Placement requests each")
        print(f"  wall time      p50 "
              f"{statistics.median(walls) * 1e3:7.1f} ms  "
              f"max {max(walls) * 1e3:7.1f} ms")
        print(f"  placement wait p50 {statistics.median(waits) * 1e3:7.1f} ms")
        print(f"  scheduler CPU  p50 {statistics.median(cpus) * 1e3:7.1f} ms  "
              f"p95 {_p95(cpus) * 1e3:7.1f} ms  (this thread; decoding "
              f"Placement's answer included)")
        print(f"    of which in the HTTP client p50 "
              f"{statistics.median(http_cpus) * 1e3:7.1f} ms")
        print(f"  scheduler time p50 {med_own:7.1f} ms  "
              f"p95 {_p95(own) * 1e3:7.1f} ms  "
              f"target {TARGET_MS:.0f} ms  ratio {med_own / TARGET_MS:.2f}x "
              f"of target")
        if profiler:
            profiler.dump_stats(os.path.join(tmp, "scheduler.prof"))
            print(f"profile: {os.path.join(tmp, 'scheduler.prof')}")
            pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
