"""Foundation benchmarks: API request cost and the conductor object round trip.

Prints figures and ratios; it asserts nothing (timed tests are not tests).

    .venv/bin/python bench/bench_foundation.py [--requests N] [--calls N]

1. GET / (versions document) over HTTP on the embedded cheroot server:
   requests/s and latency percentiles, one keep-alive client.
2. A remotable object method (Service.get_by_host_and_binary) run directly
   against SQLite and through a ``keel conductor`` process over RabbitMQ,
   as a compute host does: calls/s each and the RPC overhead ratio.
"""
import argparse
import http.client
import os
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _percentiles(samples):
    samples = sorted(samples)
    pick = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))]
    return pick(0.5) * 1e3, pick(0.99) * 1e3


def bench_api(n):
    from keel.api import deploy
    from keel.api import server
    from keel.conf import CONF

    CONF.set_override("auth_strategy", "keel-development", group="api")
    app = deploy.deploy(CONF)
    sock = server.listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    srv = server.make_server(sock, app, threads=8)
    srv.prepare()
    t = threading.Thread(target=srv.serve, daemon=True)
    t.start()
    conn = http.client.HTTPConnection("127.0.0.1", port)
    lat = []
    for path in ("/", "/v2.1/"):
        for _ in range(50):  # warm-up
            conn.request("GET", path)
            conn.getresponse().read()
    start = time.perf_counter()
    for i in range(n):
        t0 = time.perf_counter()
        conn.request("GET", "/" if i % 2 == 0 else "/v2.1/")
        resp = conn.getresponse()
        resp.read()
        lat.append(time.perf_counter() - t0)
    took = time.perf_counter() - start
    srv.stop()
    p50, p99 = _percentiles(lat)
    print(f"api  GET / and /v2.1/      : {n / took:8.0f} req/s   "
          f"p50 {p50:.2f} ms  p99 {p99:.2f} ms")
    return n / took


def bench_objects(n, transport_url):
    import subprocess
    from keel.conf import CONF
    from keel import context
    from keel.db import migration
    from keel import objects
    from keel.objects import base as obj_base
    from keel.rpc import transport
    from keel.conductor import rpcapi as conductor_rpcapi

    tmp = tempfile.mkdtemp(prefix="keel-bench-")
    conf_path = os.path.join(tmp, "nova.conf")
    with open(conf_path, "w") as f:
        f.write(f"[DEFAULT]\nhost = bench-conductor\n"
                f"transport_url = {transport_url}\n"
                f"[database]\nconnection = sqlite:///{tmp}/cell.sqlite\n"
                f"[api_database]\nconnection = sqlite:///{tmp}/api.sqlite\n")
    CONF([ "--config-file", conf_path], project="nova",
         default_config_files=[])
    migration.db_sync("main")
    migration.db_sync("api")
    objects.register_all()
    ctx = context.get_admin_context()
    objects.Service(ctx, host="bench", binary="nova-compute",
                    topic="compute", report_count=0).create()

    def run(label):
        for _ in range(20):
            objects.Service.get_by_host_and_binary(ctx, "bench",
                                                   "nova-compute")
        start = time.perf_counter()
        for _ in range(n):
            objects.Service.get_by_host_and_binary(ctx, "bench",
                                                   "nova-compute")
        rate = n / (time.perf_counter() - start)
        print(f"obj  {label:22s}: {rate:8.0f} calls/s")
        return rate

    direct = run("direct (SQLite)")
    # The conductor runs as its own process, as in production: a compute
    # host's object calls cross the broker to it.
    proc = subprocess.Popen(
        [sys.executable, "-m", "keel.cmd.main", "conductor",
         "--config-file", conf_path],
        stdout=open(os.path.join(tmp, "conductor.log"), "w"),
        stderr=subprocess.STDOUT)
    try:
        transport.init(CONF)
        api = conductor_rpcapi.ConductorAPI()
        api.wait_until_ready(ctx, timeout=3, attempts=20)
        obj_base.KeelObject.indirection_api = api
        remote = run("via conductor (RPC)")
    finally:
        obj_base.KeelObject.indirection_api = None
        proc.terminate()
        proc.wait(30)
        transport.cleanup()
    print(f"obj  RPC overhead ratio     : {direct / remote:8.2f}x "
          f"(direct / via conductor over {transport_url.split(':')[0]})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--transport-url",
                        default="rabbit://guest:guest@127.0.0.1:5672/")
    args = parser.parse_args()
    import logging
    logging.disable(logging.WARNING)
    bench_objects(args.calls, args.transport_url)
    bench_api(args.requests)


if __name__ == "__main__":
    main()
