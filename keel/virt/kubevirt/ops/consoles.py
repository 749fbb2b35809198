"""Console output and console endpoints.

The serial console log is the launcher pod's ``guest-console-log``
container (KubeVirt's ``logSerialConsole``); it restarts with each new pod.
VNC and serial consoles are virt-api websockets, not TCP ports: the console
proxy opens the websocket itself at the API server, so the endpoint we hand
out is the API server's host and port plus the subresource path.
"""
import urllib.parse

from keel import exception
from keel.virt import driver
from keel.virt.kubevirt import kube
from keel.virt.kubevirt import status

CONSOLE_CONTAINER = "guest-console-log"
# Nova's libvirt driver returns at most the last 100 KiB.
MAX_CONSOLE_BYTES = 100 * 1024


def _running_vmi(drv, instance):
    vmi = drv.guests.vmi(instance.uuid)
    if vmi is None:
        if drv.guests.vm(instance.uuid) is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        raise exception.InstanceNotReady(instance_id=instance.uuid)
    if status.vmi_phase(vmi) != "Running":
        raise exception.InstanceNotReady(instance_id=instance.uuid)
    return vmi


def launcher_pod(drv, vmi):
    """The VMI's current virt-launcher pod name (by KubeVirt's label)."""
    pods, _rv = drv.kube.list(
        kube.POD, label_selector="kubevirt.io/created-by=%s"
        % vmi["metadata"]["uid"])
    active = (vmi.get("status") or {}).get("activePods") or {}
    live = [p for p in pods if p["metadata"].get("uid") in active] or \
        [p for p in pods if (p.get("status") or {}).get("phase")
         == "Running"] or pods
    return live[0]["metadata"]["name"] if live else None


def console_output(drv, instance):
    vmi = _running_vmi(drv, instance)
    pod = launcher_pod(drv, vmi)
    if pod is None:
        raise exception.InstanceNotReady(instance_id=instance.uuid)
    text = drv.kube.pod_log(pod, CONSOLE_CONTAINER)
    return text[-MAX_CONSOLE_BYTES:]


def _endpoint(drv, instance, action):
    _running_vmi(drv, instance)
    url = urllib.parse.urlsplit(drv.kube.api.configuration.host)
    port = url.port or (443 if url.scheme == "https" else 80)
    path = "%s/namespaces/%s/virtualmachineinstances/%s/%s" % (
        kube.SUBRESOURCES, drv.kube.namespace, instance.uuid, action)
    return url.hostname, port, path


def vnc_console(drv, instance):
    host, port, path = _endpoint(drv, instance, "vnc")
    return driver.ConsoleVNC(host=host, port=port, internal_access_path=path)


def serial_console(drv, instance):
    host, port, path = _endpoint(drv, instance, "console")
    return driver.ConsoleSerial(host=host, port=port,
                                internal_access_path=path)
