"""`python -m keel.kubesim`: serve a simulated cluster for demonstrations until interrupted."""
import argparse
import signal
import threading

from .sim import KubeSim


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m keel.kubesim")
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--cpu", default="32")
    p.add_argument("--memory", default="128Gi")
    p.add_argument("--namespace", action="append", default=None)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--interval", type=float, default=0.5, help="controller period, seconds")
    args = p.parse_args(argv)
    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *a: done.set())
    signal.signal(signal.SIGTERM, lambda *a: done.set())
    with KubeSim(namespaces=tuple(args.namespace or ["default"]), port=args.port) as sim:
        for i in range(args.nodes):
            sim.add_node(f"node-{i + 1}", cpu=args.cpu, memory=args.memory)
        sim.start_controllers(args.interval)
        print(f"kubesim serving {sim.url}\nKUBECONFIG={sim.kubeconfig_path}", flush=True)
        done.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
