"""KubeSim: the Kubernetes + KubeVirt API simulator, served over loopback HTTP.

    with KubeSim() as sim:
        sim.add_node("node-1", cpu="32", memory="128Gi")
        api = sim.api_client()              # kubernetes.client.ApiClient from sim.kubeconfig_path
        ...create a VirtualMachine, PUT .../start...
        sim.run_until(lambda: sim.get("VirtualMachineInstance", "default", "vm1")
                      ["status"].get("phase") == "Running")

Controllers only move when the test says so (`step`, `settle`, `run_until`), unless
`start_controllers(interval)` runs them in a background thread for demonstrations.
"""
import json
import os
import shutil
import tempfile
import threading

from . import api
from . import controllers
from . import faults
from . import resources
from . import store as store_mod
from . import watch
from .admission import AdmissionMixin
from .cluster import ClusterMixin
from .endpoints import EndpointsMixin
from .guests import GuestsMixin
from .virtapi import VirtApi


class KubeSim(ClusterMixin, GuestsMixin, EndpointsMixin, AdmissionMixin):
    def __init__(self, *, namespaces=("default",), history_size=5000, bookmark_interval=60.0,
                 dv_progress_step=50.0, host="127.0.0.1", port=0, token=None):
        self.store = store_mod.Store(history_size=history_size)
        self.watches = watch.WatchHub(self.store)
        self.watches.bookmark_interval = bookmark_interval
        self.request_faults = faults.RequestFaults()
        self.kv_faults = faults.KubeVirtFaults()
        self.dv_progress_step = dv_progress_step
        self.virtapi = VirtApi(self)
        self.app = api.App(self)
        self.controllers = controllers.build(self)
        self._init_cluster()
        self._host, self._port = host, port
        self._namespaces = namespaces
        self._server = None
        self._tmpdir = None
        self._clients = []
        self._step_lock = threading.Lock()
        self._runner = None
        self._runner_stop = threading.Event()
        self.kubeconfig_path = None
        # With a token, requests without "Authorization: Bearer <token>" get 401.
        self.token = token

    # -- lifecycle -------------------------------------------------------------------------
    def start(self):
        from .server import Server
        self._server = Server(self.app, self._host, self._port)
        self._server.start()
        for ns in self._namespaces:
            self.create_namespace(ns)
        self._tmpdir = tempfile.mkdtemp(prefix="kubesim-")
        self.kubeconfig_path = os.path.join(self._tmpdir, "kubeconfig")
        with open(self.kubeconfig_path, "w") as f:
            json.dump(self.kubeconfig(), f)   # JSON is YAML, so any kubeconfig loader reads it
        return self

    def stop(self):
        self.stop_controllers()
        for c in self._clients:
            c.close()
        self._clients.clear()
        self.app.stopping.set()
        self.store.close()
        if self._server is not None:
            self._server.stop()
            self._server = None
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def url(self):
        return f"http://127.0.0.1:{self._server.port}"

    def kubeconfig(self, namespace="default"):
        return {"apiVersion": "v1", "kind": "Config", "current-context": "kubesim",
                "clusters": [{"name": "kubesim", "cluster": {"server": self.url}}],
                "users": [{"name": "kubesim", "user": {"token": self.token or "kubesim"}}],
                "contexts": [{"name": "kubesim", "context": {"cluster": "kubesim",
                                                             "user": "kubesim",
                                                             "namespace": namespace}}]}

    def api_client(self):
        """A kubernetes.client.ApiClient loaded from this simulator's kubeconfig file;
        closed when the simulator stops."""
        from kubernetes import config
        client = config.new_client_from_config(config_file=self.kubeconfig_path)
        self._clients.append(client)
        return client

    # -- controllers -----------------------------------------------------------------------
    def step(self):
        """Run every controller once; returns how many writes they made."""
        with self._step_lock:
            before = self.store.resource_version
            for c in self.controllers:
                c.step()
            return self.store.resource_version - before

    def settle(self, max_steps=100):
        """Step until a step changes nothing; returns the number of steps taken."""
        for n in range(1, max_steps + 1):
            if not self.step():
                return n
        raise AssertionError(f"cluster still changing after {max_steps} steps")

    def run_until(self, predicate, max_steps=100):
        """Step until predicate() is truthy; returns its value."""
        for _ in range(max_steps):
            value = predicate()
            if value:
                return value
            self.step()
        value = predicate()
        if value:
            return value
        raise AssertionError(f"condition not reached after {max_steps} steps")

    def start_controllers(self, interval=0.1):
        if self._runner is not None:
            return
        self._runner_stop.clear()

        def loop():
            while not self._runner_stop.wait(interval):
                self.step()
        self._runner = threading.Thread(target=loop, name="kubesim-controllers", daemon=True)
        self._runner.start()

    def stop_controllers(self):
        if self._runner is not None:
            self._runner_stop.set()
            self._runner.join(timeout=5)
            self._runner = None

    # -- reading state (for tests) ---------------------------------------------------------
    def get(self, kind, namespace, name):
        """A copy of the stored object, or None. kind is e.g. "VirtualMachineInstance"."""
        rt = resources.by_kind(kind)
        obj = self.store.raw(rt, namespace if rt.namespaced else "", name)
        return json.loads(json.dumps(obj)) if obj is not None else None

    def list(self, kind, namespace=None):
        items, _ = self.store.items(resources.by_kind(kind), namespace)
        return json.loads(json.dumps(items))

    @property
    def requests(self):
        return list(self.app.requests)

    def request_count(self, verb=None, path_contains=None):
        return sum(1 for m, v, p in self.app.requests
                   if (verb is None or verb in (v, m)) and
                   (path_contains is None or path_contains in p))

    def reset_requests(self):
        self.app.requests.clear()

    @property
    def server_errors(self):
        return list(self.app.server_errors)

    # -- fault injection -------------------------------------------------------------------
    def fail_requests(self, verb=None, path=None, *, status=500, count=1, reason=None,
                      message=None):
        """Answer matching requests (verb: k8s verb or HTTP method; path: regex) with an error
        Status. count=None: every match. Returns the fault (see its .hits)."""
        reasons = {500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout",
                   429: "TooManyRequests", 403: "Forbidden", 401: "Unauthorized"}
        return self.request_faults.add(faults.RequestFault(
            verb, path, count, status=status, reason=reason or reasons.get(status, "Unknown"),
            message=message or f"injected fault: {status}"))

    def delay_requests(self, verb=None, path=None, *, seconds, count=1, status=None):
        """Hold matching requests for `seconds` (a client timeout fires first), then answer
        them normally, or with `status` (504 makes a server-side timeout)."""
        return self.request_faults.add(faults.RequestFault(
            verb, path, count, status=status, delay=seconds,
            reason="Timeout" if status == 504 else None,
            message="the server was unable to return a response in the time allotted"
            if status == 504 else None))

    def clear_faults(self):
        self.request_faults.clear()
        self.kv_faults.disarm()

    def make_unschedulable(self, vmi_name=None, count=1):
        self.kv_faults.arm("unschedulable", vmi_name, count)

    def image_pull_error(self, vmi_name=None, count=1):
        self.kv_faults.arm("image_pull", vmi_name, count)

    def fail_datavolume(self, dv_name=None, count=1, message=None):
        self.kv_faults.arm("datavolume", dv_name, count, message=message)

    def fail_migration(self, vmi_name=None, count=1, reason=None):
        self.kv_faults.arm("migration", vmi_name, count, reason=reason)

    def fail_snapshot(self, name=None, count=1):
        self.kv_faults.arm("snapshot", name, count)

    def fail_hotplug(self, volume_name=None, count=1, message=None):
        """The next hotplug of `volume_name` ends in volumeStatus phase Failed."""
        self.kv_faults.arm("hotplug", volume_name, count, message=message)

    def fail_interface_hotplug(self, iface_name=None, count=1):
        """The next hotplugged interface `iface_name` cannot go live: the VM gets the
        RestartRequired condition instead (as for a binding that cannot be hotplugged)."""
        self.kv_faults.arm("iface_hotplug", iface_name, count)

    def no_guest_agent(self, vmi_name=None, count=1):
        self.kv_faults.arm("no_guest_agent", vmi_name, count)

    def disconnect_watches(self, abrupt=False):
        """End every open watch stream: cleanly (final chunk) or abruptly (socket reset)."""
        self.watches.disconnect_all(abrupt)

    def send_bookmarks(self):
        self.watches.bookmark_now()

    def compact(self):
        """Drop the event history: watches from any older resourceVersion get 410 Gone."""
        self.store.compact()
