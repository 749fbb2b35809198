"""Step 2 of bench/floor.py: oslo.messaging alone over RabbitMQ, replaying
the captured per-boot message mix between one client and one server
process (both started through bench/floor.py --role)."""
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
import uuid

from bench._floor_common import (
    ROOT, WARMUP, _delta, _deploy, _fmt, _group_cpu, _idle, _mean, _net)


def _spread(evs, k=200):
    return evs[::max(1, len(evs) // k)][:k]


def messaging_mix(rpc, gross=False):
    """What the client sends per boot (net of the idle deployment's own
    messages unless ``gross``) and what the server answers."""
    n = rpc["n"]
    sends, replies = [], {}
    for (kind, method), evs in rpc["boot"].items():
        if kind == "reply":
            replies[method] = [e["msg"].get("result") for e in _spread(evs)]
            continue
        samples = []
        for e in _spread(evs):
            m = e["msg"]
            ctx = {k[len("_context_"):]: v for k, v in m.items()
                   if k.startswith("_context_")}
            if kind == "notification":
                samples.append({"ctx": ctx, "event_type": m["event_type"],
                                "payload": m.get("payload"),
                                "priority": m.get("priority", "INFO"),
                                "publisher_id": m.get("publisher_id"),
                                "topic": e.get("topic")})
            else:
                samples.append({"ctx": ctx, "args": m.get("args") or {}})
        sends.append({"kind": kind, "method": method,
                      "per_boot": len(evs) / n if gross
                      else rpc["net"][kind, method], "samples": samples,
                      "size": sum(e["size"] for e in evs) / len(evs)})
    return {"sends": sends, "replies": replies}


RPC_CONF = ("[DEFAULT]\ntransport_url = {url}\ncontrol_exchange = {exchange}\n"
            "[oslo_messaging_notifications]\ndriver = messagingv2\n")


def _rpc_conf(conf_path):
    from keel.cmd import common
    common.parse_args(["--config-file", conf_path], "keel-floor",
                      setup_logging=False)
    from keel.rpc import transport
    transport.init()
    return transport


def _serializer():
    """None: payloads stay primitives; with --rpc-objects keel's object
    serializer turns them into keel objects and back on both ends."""
    if not os.environ.get("KEEL_FLOOR_RPC_OBJECTS"):
        return None
    from keel import objects
    from keel.rpc import serializer
    objects.register_all()
    return serializer.object_serializer()


def rpc_server(conf_path, mix_path):
    import oslo_messaging as messaging
    transport = _rpc_conf(conf_path)
    with open(mix_path) as fh:
        mix = json.load(fh)
    replies = mix["replies"]
    counter = {"n": 0}

    class Endpoint:
        target = messaging.Target(version="1.0")

        def __getattr__(self, method):
            # (oslo.messaging probes for its reserved oslo_* names)
            if method.startswith(("_", "oslo_")):
                raise AttributeError(method)
            answers = replies.get(method) or [None]

            def handler(ctxt, **kwargs):
                counter["n"] += 1
                return answers[counter["n"] % len(answers)]
            return handler

    server = transport.get_server(
        messaging.Target(topic="floor", server="floor-server"), [Endpoint()],
        serializer=_serializer())
    server.start()
    print("READY", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    done.wait()
    server.stop()
    server.wait()
    return 0


def rpc_client(conf_path, mix_path, boots, warmup, concurrency):
    import oslo_messaging as messaging
    from keel import context as keel_context
    transport = _rpc_conf(conf_path)
    with open(mix_path) as fh:
        mix = json.load(fh)
    client = transport.get_client(messaging.Target(
        topic="floor", server="floor-server", version="1.0"),
        serializer=_serializer())
    fanout = client.prepare(fanout=True, server=None)
    notifiers = {}

    def notifier(topic, publisher):
        key = (topic, publisher)
        if key not in notifiers:
            base = (topic or "notifications").rsplit(".", 1)[0]
            notifiers[key] = messaging.Notifier(
                transport.get_notification_transport(),
                publisher_id=publisher or "floor", driver="messagingv2",
                topics=[base])
        return notifiers[key]

    def plan(n):
        msgs = []
        for s in mix["sends"]:
            total = round(s["per_boot"] * n)
            for j in range(total):
                msgs.append((s["kind"], s["method"],
                             s["samples"][j % len(s["samples"])]))
        random.Random(n).shuffle(msgs)
        return msgs

    def send(item):
        kind, method, sample = item
        ctxt = keel_context.RequestContext.from_dict(sample["ctx"])
        if kind == "call":
            client.call(ctxt, method, **sample["args"])
        elif kind == "cast":
            client.cast(ctxt, method, **sample["args"])
        elif kind == "fanout":
            fanout.cast(ctxt, method, **sample["args"])
        else:
            note = notifier(sample["topic"], sample["publisher_id"])
            getattr(note, sample["priority"].lower())(
                ctxt, sample["event_type"], sample["payload"])

    def run(n):
        work = queue.Queue()
        for item in plan(n):
            work.put(item)

        def worker():
            while True:
                try:
                    item = work.get_nowait()
                except queue.Empty:
                    return
                send(item)

        threads = [threading.Thread(target=worker) for _ in
                   range(concurrency)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    # The wire size of what is sent, measured in the warm-up only.
    from oslo_messaging._drivers import common as rpc_common
    original, sizes = rpc_common.serialize_msg, []

    def measured(raw):
        out = original(raw)
        sizes.append(len(out[rpc_common._MESSAGE_KEY]))
        return out

    rpc_common.serialize_msg = measured
    run(warmup)
    rpc_common.serialize_msg = original
    print(f"WARM {sum(sizes) / max(len(sizes), 1):.0f}", flush=True)
    sys.stdin.readline()
    t0 = time.perf_counter()
    run(boots)
    print(f"DONE {time.perf_counter() - t0:.3f} {len(plan(boots))}",
          flush=True)
    sys.stdin.readline()
    return 0


def messaging_floor(rpc, args, workdir):
    from tests.fixtures import databases
    mix = messaging_mix(rpc, args.with_background)
    mix_path = os.path.join(workdir, "rpc-mix.json")
    with open(mix_path, "w") as fh:
        json.dump(mix, fh)
    tag = uuid.uuid4().hex[:8]
    vhost, url = databases.private_vhost(f"keel_floor_{tag}")
    conf = os.path.join(workdir, "rpc.conf")
    with open(conf, "w") as fh:
        fh.write(RPC_CONF.format(url=url, exchange=f"keel_floor_{tag}"))
    me = [sys.executable, os.path.join(ROOT, "bench", "floor.py")]
    procs = []
    log = open(os.path.join(workdir, "rpc.log"), "w")
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    if args.rpc_objects:
        env["KEEL_FLOOR_RPC_OBJECTS"] = "1"
    try:
        server = subprocess.Popen(me + ["--role", "rpc-server", conf,
                                        mix_path],
                                  stdout=subprocess.PIPE, stderr=log,
                                  text=True, cwd=ROOT, env=env)
        procs.append(server)
        if server.stdout.readline().strip() != "READY":
            raise RuntimeError("rpc server did not start")
        client = subprocess.Popen(
            me + ["--role", "rpc-client", conf, mix_path, str(args.servers),
                  str(WARMUP), str(args.concurrency)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
            text=True, cwd=ROOT, env=env)
        procs.append(client)
        warm = client.stdout.readline().split()
        if not warm or warm[0] != "WARM":
            raise RuntimeError(f"rpc client failed; see {log.name}")
        groups = {"client": [client.pid], "server": [server.pid],
                  "rabbitmq": _deploy.pids_by_comm("beam.smp")}
        idle_before = _idle(groups)
        c1 = _group_cpu(groups)
        t1 = time.perf_counter()
        client.stdin.write("go\n")
        client.stdin.flush()
        done = client.stdout.readline().split()
        time.sleep(0.5)   # the last casts reach the server
        raw = _delta(_group_cpu(groups), c1)
        phase_s = time.perf_counter() - t1
        idle = _mean(idle_before, _idle(groups))
        client.stdin.write("end\n")
        client.stdin.flush()
        client.wait(60)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
        databases.drop_vhost(vhost)
        log.close()
    n = args.servers
    took, sent = float(done[1]), int(done[2])
    per = {k: sum(s["per_boot"] for s in mix["sends"] if s["kind"] == k)
           for k in ("call", "cast", "fanout", "notification")}
    captured = sum(s["size"] * s["per_boot"] for s in mix["sends"]) / max(
        sum(s["per_boot"] for s in mix["sends"]), 1)
    print(f"\n=== 2. oslo.messaging alone (keel.rpc.transport, RabbitMQ "
          f"vhost {vhost}): {n} boots' messages from {args.concurrency} "
          "threads; " + ("as counted, background included"
                         if args.with_background else
                         "net of the idle deployment's own") +
          "; payloads " + ("made keel objects on both ends "
                                   "(--rpc-objects: keel's work included)"
                                   if args.rpc_objects else
                                   "kept primitives") + " ===")
    print(f"    per boot: calls {per['call']:.2f} (+ as many replies), casts "
          f"{per['cast']:.2f}, fanouts {per['fanout']:.2f}, notifications "
          f"{per['notification']:.2f}; {sent} sends in {took:.1f} s; "
          f"mean request size {warm[1]} B sent vs {captured:.0f} B "
          "captured (replies: the captured results)")
    cpu = _net(raw, idle, phase_s)
    print(f"[boot] CPU-s per boot: {sum(cpu.values()) / n:.4f}  "
          f"({_fmt(cpu, n)}; rabbitmq as measured "
          f"{raw['rabbitmq'] / n:.4f})")
    print("    idle rates (mean of before and after; subtracted from "
          "rabbitmq): " + ", ".join(f"{k} {v:.3f} CPU-s/s"
                                   for k, v in idle.items()))
    cpu["raw"] = sum(raw.values())
    return cpu


# -- 3. the sum ------------------------------------------------------------
