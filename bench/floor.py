"""The CPU floor of the parts of a distributed boot keel does not own:
upstream Placement (+ its MariaDB work) and oslo.messaging over RabbitMQ,
driven with exactly the traffic a real keel boot sends them, with none of
keel's own work around it. Prints figures; asserts nothing.

    .venv/bin/python bench/floor.py [-n 500] [-c 10] [--hosts 50]
        [--capture-servers 50] [--placement-server cheroot|uwsgi|gunicorn]
        [--part both|placement|messaging] [--rpc-objects]

Always run under ``flock /tmp/keel-bench.lock``.

Steps:
 0. capture -- bench/_deploy.py's distributed deployment (api, conductor,
    scheduler, ``keel compute --hosts 50``, the real unmodified Placement,
    MariaDB, RabbitMQ) boots and deletes ``--capture-servers`` servers at
    concurrency 10 through the API, as bench/boot.py does. A sitecustomize
    hook (bench/_floor_hook.py; observation only, keel/ is unchanged) in
    the keel processes records every Placement request keel's clients
    send (method, URL with query string, microversion, JSON body) and
    every oslo.messaging message (call, reply, cast, fanout,
    notification: the exact wire JSON and its size). The per-boot and
    per-delete mixes are taken from the boot and delete windows. The
    capture run's CPU is not measured.
 1. Placement alone -- keel's processes are stopped; Placement keeps the
    50 resource providers keel's compute created (inventories, allocation
    ratios, reserved and traits exactly as keel reports them). A client in
    this process (not counted) replays, for ``-n`` new consumers at
    concurrency ``-c``, the captured per-boot requests (GET
    /allocation_candidates with the captured query and microversion, then
    PUT /allocations/{consumer} with an allocation request it returned and
    the captured body shape) and afterwards the per-delete requests. CPU
    of the Placement process(es) and mariadbd is read from /proc before and
    after each phase, after a warm-up of 50 consumers.
 2. Messaging alone -- a private RabbitMQ vhost, one server process and one
    client process, both set up by keel.rpc.transport (keel's config
    defaults, its oslo.messaging patches, RequestContextSerializer without
    an object serializer: payloads stay the captured primitives, so the
    bytes on the wire are those of the capture). The client sends, from
    10 threads, the captured per-boot mix of calls (each answered with a
    captured reply of that method), casts, fanouts and notifications with
    the captured payloads and contexts, for ``-n`` boots after a warm-up.
    CPU of the client, the server and beam.smp is read from /proc.
 3. The sum.

How to read the output: every "CPU-s per boot" figure is the CPU delta
(utime+stime from /proc) of the named processes over the measured phase,
divided by the boots replayed, as bench/boot.py computes its figure.
"floor of parts keel does not own" = Placement + mariadbd + messaging
client + server + rabbitmq, boot phase only (bench/boot.py's 0.12-target
figure is the boot phase too; the per-delete Placement cost is printed
apart). Its ratio to 0.12 is the share of the budget these parts take by
themselves; "left for keel" is 0.12 minus the floor. Included: upstream
Placement, MariaDB, RabbitMQ, oslo.messaging (+kombu, JSON) on both ends
of every message, keel's RequestContext (de)serialisation per message,
and the background messages the capture's boot window saw (counted per
boot as bench/boot.py counts them; their share is printed). Excluded:
keel's object (de)serialisation (unless --rpc-objects), keel's Placement
client (this driver sends the requests, uncounted), all of keel's own SQL
and logic. mariadbd and beam.smp serve others on this machine too: their
figures are net of their idle rate (measured for 5 s before and after each
phase); the sum as measured is printed as well. keel's processes and the
replay's own are not made net of anything (their idle rate is ~0).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent import futures

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import _deploy  # noqa: E402
from bench._floor_common import (  # noqa: E402
    IDLE_SECONDS, SETTLE, TARGET_CPU_PER_BOOT, WARMUP, _delta, _fmt,
    _group_cpu, _idle, _mean, _net, _shape)
from bench._floor_messaging import (  # noqa: E402
    messaging_floor, rpc_client, rpc_server)


def capture(args, workdir):
    from bench import boot
    hookdir = os.path.join(workdir, "hook")
    capdir = os.path.join(workdir, "capture")
    os.makedirs(hookdir)
    os.makedirs(capdir)
    shutil.copy(os.path.join(ROOT, "bench", "_floor_hook.py"),
                os.path.join(hookdir, "sitecustomize.py"))
    saved = {k: os.environ.get(k) for k in ("PYTHONPATH",
                                            "KEEL_FLOOR_CAPTURE")}
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [hookdir] + ([saved["PYTHONPATH"]] if saved["PYTHONPATH"] else []))
    os.environ["KEEL_FLOOR_CAPTURE"] = capdir
    t0 = time.perf_counter()
    try:
        dep = _deploy.Distributed(workdir, args.hosts,
                                  placement_server=args.placement_server)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    print(f"capture: distributed deployment with {args.hosts} hosts up in "
          f"{time.perf_counter() - t0:.0f} s", flush=True)
    try:
        windows = _capture_run(dep, args.capture_servers, args.concurrency,
                               boot)
    except BaseException:
        dep.stop()
        raise
    events = []
    for name in os.listdir(capdir):
        with open(os.path.join(capdir, name)) as fh:
            for line in fh:
                try:
                    events.append(json.loads(line))
                except ValueError:
                    continue
    return dep, events, windows


def _capture_run(dep, n, concurrency, boot):
    client = boot.Client(dep.api_url)
    image, flavor = boot._image_and_flavor(client)
    watcher = boot.Watcher(dep.cell_urls)
    time.sleep(2)
    idle0 = time.time()
    time.sleep(IDLE_SECONDS * 2)
    b0 = time.time()
    with futures.ThreadPoolExecutor(concurrency) as pool:
        posted = list(pool.map(
            lambda i: client.post_server(f"floor-{i}", image, flavor),
            range(n)))
    ids = [p[2] for p in posted if p[2]]
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        states = watcher.states()
        if all(states.get(u) in ("active", "error") for u in ids):
            break
        time.sleep(0.1)
    errors = sum(1 for u in ids if states.get(u) != "active")
    time.sleep(SETTLE)
    b1 = time.time()
    with futures.ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(client.delete_server, ids))
    while time.monotonic() < deadline:
        if not set(ids) & set(watcher.states()):
            break
        time.sleep(0.1)
    time.sleep(SETTLE)
    d1 = time.time()
    watcher.close()
    print(f"capture: {len(ids)} of {n} servers booted ({errors} not ACTIVE) "
          f"and deleted", flush=True)
    if errors or len(ids) < n:
        raise RuntimeError("the capture boot failed; see "
                           f"{dep.workdir}/*.log")
    return {"idle": (idle0, b0), "boot": (b0, b1), "delete": (b1, d1),
            "n": len(ids)}


def _in(events, window, kinds):
    lo, hi = window
    return [e for e in events if lo <= e["t"] < hi and e["kind"] in kinds]


def summarize_rpc(events, windows):
    n = windows["n"]
    kinds = ("call", "cast", "fanout", "notification", "reply")
    out = {}
    for phase in ("idle", "boot", "delete"):
        evs = _in(events, windows[phase], kinds)
        by = {}
        for e in evs:
            by.setdefault((e["kind"], e["method"]), []).append(e)
        out[phase] = by
    idle_s = windows["idle"][1] - windows["idle"][0]
    boot_s = windows["boot"][1] - windows["boot"][0]
    boot_by = out["boot"]
    # The idle deployment's own messages (service reports, periodic
    # tasks) at the rate seen before the boots, over the boot window.
    out["net"] = {key: max(0.0, len(evs) - len(out["idle"].get(key, ()))
                           * boot_s / idle_s) / n
                  for key, evs in boot_by.items()}
    print(f"\ncapture, RPC messages per boot ({n} boots in a {boot_s:.1f} s "
          "window): as counted (background included, as bench/boot.py "
          "counts) / net of the idle rate:")
    for label, table in (("counted", {k: len(v) / n for k, v in
                                      boot_by.items()}),
                         ("net", out["net"])):
        tot = {k: sum(v for (kk, _), v in table.items() if kk == k)
               for k in kinds}
        print(f"    {label:8s}: casts {tot['cast']:.2f}, calls "
              f"{tot['call']:.2f} + replies {tot['reply']:.2f}, fanouts "
              f"{tot['fanout']:.2f}, notifications {tot['notification']:.2f}")
    for (kind, method), evs in sorted(boot_by.items(),
                                      key=lambda kv: -len(kv[1])):
        avg = sum(e["size"] for e in evs) / len(evs)
        print(f"      {kind:12s} {str(method):32s} {len(evs) / n:5.2f} / "
              f"{out['net'][kind, method]:5.2f} per boot  {avg:7.0f} B")
    idle = sum(len(v) for v in out["idle"].values())
    print(f"    idle background: {idle / idle_s:.1f} messages/s before the "
          f"boots (~{idle / idle_s * boot_s / n:.1f} per boot in this "
          "window)")
    dn = sum(len(v) for v in out["delete"].values()) / n
    print(f"    delete window: {dn:.2f} messages per delete")
    return out


# -- 1. Placement alone ----------------------------------------------------

def placement_mix(events, windows):
    n = windows["n"]
    mix = {}
    for phase in ("boot", "delete"):
        reqs = _in(events, windows[phase], ("placement",))
        for e in reqs:   # the path only, whatever the client was given
            if "://" in e["url"]:
                e["url"] = "/" + e["url"].split("://", 1)[1].split(
                    "/", 1)[-1]
        by = {}
        for e in reqs:
            by.setdefault((e["method"], _shape(e["url"]), e["version"]),
                          []).append(e)
        mix[phase] = by
        print(f"\ncapture, Placement requests per {phase} "
              f"({len(reqs) / n:.2f}):")
        for (method, shape, version), evs in sorted(
                by.items(), key=lambda kv: -len(kv[1])):
            statuses = sorted({e["status"] for e in evs})
            print(f"      {len(evs) / n:5.2f}  {method} {shape[:150]}  "
                  f"[{version}] -> {statuses}")
    return mix


class PlacementReplay:
    """Replays the captured per-boot / per-delete Placement requests."""

    def __init__(self, endpoint, mix, n_capture):
        import requests
        self.requests = requests
        self.endpoint = endpoint.rstrip("/")
        self.local = threading.local()
        self.count = {"boot": 0, "delete": 0}
        self.lock = threading.Lock()
        self.plan = {}
        self.unreplayed = []
        for phase, by in mix.items():
            ops = []
            for (method, shape, version), evs in by.items():
                rate = len(evs) / n_capture
                op = self._op(method, shape, version, evs)
                if op is None:
                    self.unreplayed.append((phase, method, shape, rate))
                else:
                    ops.append((op[0], rate, op[1]))
            ops.sort(key=lambda o: o[0])
            self.plan[phase] = ops
        self.body = None
        for evs in mix.get("boot", {}).values():
            for e in evs:
                if e["method"] == "PUT" and (e.get("json") or {}).get(
                        "allocations"):
                    self.body = e["json"]

    def _op(self, method, shape, version, evs):
        """(order, callable(consumer, state)) for a captured request."""
        sample = evs[0]
        url = sample["url"]
        if shape.startswith("/allocation_candidates"):
            return 0, lambda c, st: self._candidates(url, version, st)
        if shape == "/allocations/{id}":
            if method == "PUT" and (sample.get("json") or {}).get(
                    "allocations"):
                return 1, lambda c, st: self._claim(c, version, st)
            if method == "GET":
                return 2, lambda c, st: self._read(c, version, st)
            if method == "PUT":
                return 3, lambda c, st: self._release(c, version, st)
            if method == "DELETE":
                return 3, lambda c, st: self._req(
                    "DELETE", f"/allocations/{c}", version)
        if method == "GET" and "{id}" not in shape:
            return 4, lambda c, st: self._req("GET", url, version)
        if method == "GET":   # a provider's own URL: the same provider
            return 4, lambda c, st: self._req("GET", url, version)
        return None

    def session(self):
        s = getattr(self.local, "s", None)
        if s is None:
            s = self.local.s = self.requests.Session()
            s.headers.update({"Accept": "application/json"})
        return s

    def _req(self, method, path, version, body=None):
        headers = {"OpenStack-API-Version": version,
                   "X-OpenStack-Request-ID": "req-" + str(uuid.uuid4())}
        resp = self.session().request(method, self.endpoint + path,
                                      headers=headers, json=body)
        with self.lock:
            self.count[self.phase] += 1
        return resp

    def _candidates(self, url, version, st):
        resp = self._req("GET", url, version)
        st["areqs"] = resp.json().get("allocation_requests") or []

    def _claim(self, consumer, version, st):
        for _ in range(4):   # keel retries provider-side conflicts
            areqs = st.get("areqs") or []
            if not areqs:
                raise RuntimeError("no allocation candidates")
            # keel takes the best-weighed host (spread); a random pick
            # gives the same spread over providers.
            areq = random.choice(areqs[:50])
            body = {"allocations": areq["allocations"],
                    "project_id": self.body["project_id"],
                    "user_id": self.body["user_id"],
                    "consumer_generation": None}
            resp = self._req("PUT", f"/allocations/{consumer}", version,
                             body)
            if resp.status_code == 204:
                return
            areqs.remove(areq)
        raise RuntimeError(f"claim failed: {resp.status_code} {resp.text}")

    def _read(self, consumer, version, st):
        st["current"] = self._req("GET", f"/allocations/{consumer}",
                                  version).json()

    def _release(self, consumer, version, st):
        cur = st.get("current") or {}
        body = {"allocations": {}, "project_id": cur.get("project_id"),
                "user_id": cur.get("user_id"),
                "consumer_generation": cur.get("consumer_generation")}
        resp = self._req("PUT", f"/allocations/{consumer}", version, body)
        if resp.status_code != 204:
            raise RuntimeError(f"release: {resp.status_code} {resp.text}")

    def run(self, phase, consumers, concurrency, states):
        """Each consumer's ops; a rate r op runs floor((i+1)r)-floor(ir)
        times for the i-th consumer (r*N in all)."""
        self.phase = phase
        ops = self.plan.get(phase, [])

        def one(i):
            c = consumers[i]
            st = states.setdefault(c, {})
            for _order, rate, fn in ops:
                for _ in range(int((i + 1) * rate) - int(i * rate)):
                    fn(c, st)

        with futures.ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(one, range(len(consumers))))


def placement_floor(dep, mix, n_capture, args):
    # keel's processes go: only Placement (and MariaDB) stay.
    for name in ("api", "compute", "conductor", "scheduler"):
        proc = dep.procs.get(name)
        if proc is not None and proc.poll() is None:
            proc.terminate()
    for name in ("api", "compute", "conductor", "scheduler"):
        try:
            dep.procs[name].wait(30)
        except subprocess.TimeoutExpired:
            dep.procs[name].kill()
    endpoint = None
    with open(dep.control) as fh:
        for line in fh:
            if line.startswith("endpoint_override"):
                endpoint = line.split("=", 1)[1].strip()
    replay = PlacementReplay(endpoint, mix, n_capture)
    check = replay.session().get(
        endpoint + "/resource_providers",
        headers={"OpenStack-API-Version": "placement 1.14"}).json()
    rps = check["resource_providers"]
    inv = replay.session().get(
        f"{endpoint}/resource_providers/{rps[0]['uuid']}/inventories",
        headers={"OpenStack-API-Version": "placement 1.26"}).json()
    traits = replay.session().get(
        f"{endpoint}/resource_providers/{rps[0]['uuid']}/traits",
        headers={"OpenStack-API-Version": "placement 1.6"}).json()
    print(f"\n=== 1. Placement alone ({args.placement_server}, unmodified): "
          f"{len(rps)} resource providers as keel's compute reported them; "
          f"one has inventories " + ", ".join(
              f"{rc}(total {v['total']}, reserved {v['reserved']}, ratio "
              f"{v['allocation_ratio']})"
              for rc, v in sorted(inv["inventories"].items()))
          + f" and {len(traits['traits'])} traits ===")
    for phase, rc, shape, rate in replay.unreplayed:
        print(f"    not replayed ({phase}): {rate:.2f}/boot {rc} {shape}")
    placement_pids = sorted(_deploy._children([dep.procs["placement"].pid]))
    groups = {"placement": placement_pids,
              "mariadbd": _deploy.pids_by_comm("mariadbd", "mysqld")}
    states = {}
    warm = [str(uuid.uuid4()) for _ in range(WARMUP)]
    replay.run("boot", warm, args.concurrency, states)
    replay.run("delete", warm, args.concurrency, states)
    idle_before = _idle(groups)
    consumers = [str(uuid.uuid4()) for _ in range(args.servers)]
    raw, took = {}, {}
    for phase in ("boot", "delete"):
        before = _group_cpu(groups)
        sent0 = replay.count[phase]
        t0 = time.perf_counter()
        replay.run(phase, consumers, args.concurrency, states)
        took[phase] = time.perf_counter() - t0
        raw[phase] = _delta(_group_cpu(groups), before)
        n = len(consumers)
        print(f"[{phase}] {n} consumers at concurrency {args.concurrency} "
              f"in {took[phase]:.1f} s ({n / took[phase]:.1f}/s); Placement "
              f"requests per {phase}: "
              f"{(replay.count[phase] - sent0) / n:.2f}")
    idle = _mean(idle_before, _idle(groups))
    res = {}
    for phase in ("boot", "delete"):
        res[phase] = net = _net(raw[phase], idle, took[phase])
        print(f"[{phase}] CPU-s per {phase}: {sum(net.values()) / n:.4f}  "
              f"({_fmt(net, n)}; mariadbd as measured "
              f"{raw[phase]['mariadbd'] / n:.4f})")
    print("    idle rates (mean of before and after; subtracted from "
          "mariadbd): " + ", ".join(f"{k} {v:.3f} CPU-s/s"
                                   for k, v in idle.items()))
    res["raw"] = raw
    return res


# -- 2. messaging alone ----------------------------------------------------

def report(pl, msg, n, rpc_objects=False):
    print("\n=== 3. floor of parts keel does not own (CPU-s per boot) ===")
    parts = {}
    if pl:
        parts["Placement (boot)"] = pl["boot"].get("placement", 0) / n
        parts["mariadbd for Placement (boot)"] = pl["boot"].get(
            "mariadbd", 0) / n
    if msg:
        parts["oslo.messaging client"] = msg.get("client", 0) / n
        parts["oslo.messaging server"] = msg.get("server", 0) / n
        parts["rabbitmq (beam.smp)"] = msg.get("rabbitmq", 0) / n
    for k, v in parts.items():
        print(f"    {k:32s} {v:.4f}")
    floor = sum(parts.values())
    raw = (sum(pl["raw"]["boot"].values()) if pl else 0) + (
        msg["raw"] if msg else 0)
    missing = [name for name, got in (("Placement", pl), ("messaging", msg))
               if not got]
    if missing:
        print(f"PARTIAL: {' and '.join(missing)} not measured (--part)")
    if msg and rpc_objects:
        print("NOT A FLOOR: --rpc-objects adds keel's object "
              "(de)serialisation to the messaging figure")
    print(f"floor of parts keel does not own: {floor:.4f} CPU-s per boot "
          f"(ratio to the {TARGET_CPU_PER_BOOT} target: "
          f"{floor / TARGET_CPU_PER_BOOT:.2f}); left for keel's own work: "
          f"{TARGET_CPU_PER_BOOT - floor:+.4f}")
    print(f"    (mariadbd and rabbitmq net of their idle rate, i.e. of "
          f"others' use; as measured the sum is {raw / n:.4f}, ratio "
          f"{raw / n / TARGET_CPU_PER_BOOT:.2f})")
    if pl:
        own = pl["boot"].get("placement", 0) / n
        print(f"    Placement alone needs {own:.4f} CPU-s per boot: "
              f"{1 / max(own, 1e-9):.1f} boots per CPU-second its "
              "process(es) get")
        dl = sum(pl["delete"].values()) / n
        print(f"    (+ per delete, Placement + mariadbd: {dl:.4f}; "
              "bench/boot.py's boot figure counts the boot phase only)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--servers", type=int, default=500,
                        help="boots (consumers / message mixes) replayed")
    parser.add_argument("-c", "--concurrency", type=int, default=10)
    parser.add_argument("--hosts", type=int, default=50)
    parser.add_argument("--capture-servers", type=int, default=50,
                        help="servers the capture run boots and deletes")
    parser.add_argument("--placement-server", default="cheroot",
                        choices=("cheroot", "uwsgi", "gunicorn"))
    parser.add_argument("--part", default="both",
                        choices=("both", "placement", "messaging"))
    parser.add_argument("--rpc-objects", action="store_true",
                        help="messaging: (de)serialise payloads as keel "
                             "objects, as keel's services do (adds keel's "
                             "object work to the messaging figure)")
    parser.add_argument("--with-background", action="store_true",
                        help="messaging: replay the boot window's messages "
                             "as counted, the idle deployment's own "
                             "included (default: net of its idle rate)")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--role", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.role == "rpc-server":
        return rpc_server(*rest)
    if args.role == "rpc-client":
        return rpc_client(rest[0], rest[1], int(rest[2]), int(rest[3]),
                          int(rest[4]))
    workdir = tempfile.mkdtemp(prefix="keel-floor-")
    print(f"floor: work dir {workdir}; load average {os.getloadavg()[0]:.2f}",
          flush=True)
    dep = None
    try:
        dep, events, windows = capture(args, workdir)
        rpc = summarize_rpc(events, windows)
        rpc["n"] = windows["n"]
        mix = placement_mix(events, windows)
        pl = msg = None
        if args.part in ("both", "placement"):
            pl = placement_floor(dep, mix, windows["n"], args)
        dep.stop()
        dep = None
        if args.part in ("both", "messaging"):
            msg = messaging_floor(rpc, args, workdir)
        report(pl, msg, args.servers, args.rpc_objects)
    finally:
        if dep is not None:
            dep.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
