"""The simulator starts on an ephemeral loopback port and leaves nothing running."""
import threading
import time

import websocket
from kubernetes import client

from keel.kubesim import KubeSim

from .kv import create_vm, subresource, vmi_phase


def _sim_threads():
    return [t for t in threading.enumerate() if t.name.startswith("kubesim") and t.is_alive()]


def test_stop_ends_every_connection_and_thread():
    before = len(_sim_threads())
    with KubeSim() as sim:
        sim.add_node("n1")
        assert sim.url.startswith("http://127.0.0.1:") and not sim.url.endswith(":0")
        api = sim.api_client()
        core = client.CoreV1Api(api)
        custom = client.CustomObjectsApi(api)
        create_vm(custom, "vm1")
        subresource(api, "virtualmachines", "vm1", "start")
        sim.start_controllers(interval=0.01)
        sim.run_until(lambda: vmi_phase(sim, "vm1") == "Running")
        # a watch that would run forever, an open websocket and keep-alive connections
        stream = core.list_namespaced_secret("default", watch=True, _preload_content=False)
        ws = websocket.create_connection(
            sim.url.replace("http", "ws") + "/apis/subresources.kubevirt.io/v1/namespaces/"
            "default/virtualmachineinstances/vm1/console", timeout=5)
        sim.delay_requests("GET", r"/api/v1/nodes$", seconds=60)
        hung = threading.Thread(target=lambda: _swallow(core.list_node), daemon=True)
        hung.start()
        deadline = time.monotonic() + 5
        while sim.watches.active != 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert sim.watches.active == 1
    hung.join(timeout=5)
    ws.close()
    stream.release_conn()
    assert len(_sim_threads()) == before
    assert sim.kubeconfig_path and not __import__("os").path.exists(sim.kubeconfig_path)


def _swallow(fn):
    try:
        fn()
    except Exception:  # noqa: BLE001 - the server went away underneath it, as intended
        pass


def test_kubeconfig_points_at_the_simulator():
    with KubeSim(namespaces=("default", "openkeel")) as sim:
        from kubernetes import config
        loader = config.kube_config.KubeConfigLoader(sim.kubeconfig())
        cfg = client.Configuration()
        loader.load_and_set(cfg)
        assert cfg.host == sim.url
        ns = client.CoreV1Api(sim.api_client()).list_namespace()
        assert sorted(n.metadata.name for n in ns.items) == ["default", "openkeel"]


def test_token_is_enforced_when_configured():
    with KubeSim(token="s3cret") as sim:
        assert client.CoreV1Api(sim.api_client()).list_namespace().items  # kubeconfig carries it
        cfg = client.Configuration()
        cfg.host = sim.url
        anon = client.ApiClient(cfg)
        try:
            client.CoreV1Api(anon).list_namespace()
        except client.ApiException as exc:
            assert exc.status == 401
        else:
            raise AssertionError("anonymous request accepted")
        finally:
            anon.close()
