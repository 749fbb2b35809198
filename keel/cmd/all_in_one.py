"""``keel all-in-one``: every service in one process, no outside services.

Options beyond the usual ``--config-file``/``--config-dir``:
``--state-dir DIR`` (databases; default ./state), ``--hosts N`` (simulated
compute hosts; default 1), ``--listen ADDR`` (default 127.0.0.1),
``--api-port`` (8774), ``--placement-port`` (8778), ``--kubeconfig FILE``
(run the compute on the KubeVirt driver against that cluster: one compute
service, one compute node per schedulable Kubernetes node) and
``--kubesim N`` (the same, against the bundled Kubernetes/KubeVirt simulator
with N nodes, for demonstrations).
"""
import argparse
import logging
import signal
import sys
import threading

from keel.cmd import common
from keel.conf import CONF


def _parse(argv):
    parser = argparse.ArgumentParser(prog="keel all-in-one", add_help=True)
    parser.add_argument("--state-dir", default="./state")
    parser.add_argument("--hosts", type=int, default=1)
    parser.add_argument("--listen", default="127.0.0.1")
    parser.add_argument("--api-port", type=int, default=8774)
    parser.add_argument("--placement-port", type=int, default=8778)
    parser.add_argument("--host-name", default=None,
                        help="base name of the simulated compute hosts "
                             "(default [DEFAULT]/host)")
    parser.add_argument("--kubeconfig", default=None,
                        help="run guests on KubeVirt in this cluster")
    parser.add_argument("--kubesim", type=int, default=None, metavar="N",
                        help="run guests on the bundled Kubernetes/KubeVirt "
                             "simulator with N nodes")
    known, rest = parser.parse_known_args(argv)
    if known.hosts < 1:
        parser.error("--hosts must be at least 1")
    if known.kubeconfig and known.kubesim:
        parser.error("--kubeconfig and --kubesim exclude each other")
    if known.kubesim is not None and known.kubesim < 1:
        parser.error("--kubesim needs at least 1 node")
    return known, rest


def main(argv):
    args, rest = _parse(argv)
    common.parse_args(rest, "keel all-in-one")
    from keel.allinone import runner
    from keel.allinone import settings

    layout = settings.Layout(args.state_dir, listen=args.listen,
                             api_port=args.api_port,
                             placement_port=args.placement_port,
                             hosts=args.hosts, host_base=args.host_name)
    sim = None
    kubeconfig = args.kubeconfig
    if args.kubesim:
        sim = _start_kubesim(args.kubesim)
        kubeconfig = sim.kubeconfig_path
    if kubeconfig:
        settings.use_kubevirt(CONF, layout, kubeconfig)
    aio = runner.AllInOne(layout)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        aio.start()
    except OSError as exc:  # typically a port already in use
        sys.stderr.write(f"keel all-in-one: cannot start: {exc}\n")
        aio.stop()
        return 1
    except Exception as exc:  # noqa: BLE001 - one clear line, then exit
        logging.getLogger(__name__).exception("all-in-one start failed")
        sys.stderr.write(f"keel all-in-one: cannot start: {exc}\n")
        aio.stop()
        return 1
    from keel import gctune
    gctune.settle()
    print(aio.banner(), flush=True)
    while not stop.wait(0.5):
        pass
    print("Stopping...", flush=True)
    aio.stop()
    if sim is not None:
        sim.stop()
    return 0


def _start_kubesim(nodes):
    """The bundled simulator, controllers running on their own."""
    from keel.kubesim import KubeSim
    sim = KubeSim()
    sim.start()
    for i in range(1, nodes + 1):
        sim.add_node(f"node-{i}")
    sim.start_controllers()
    return sim
