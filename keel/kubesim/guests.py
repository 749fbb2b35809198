"""What guests and their agents would do: OS info, serial console output, reboots, power-off
and crashes. Mixed into KubeSim."""
from . import kubevirt as kv
from . import meta


class GuestsMixin:
    def guest_os_info(self, vmi):
        name = vmi["metadata"]["name"]
        return {"guestAgentVersion": "8.2.0", "hostname": name, "timezone": "UTC, 0",
                "os": {"name": "Fedora Linux", "id": "fedora", "version": "41",
                       "versionId": "41", "prettyName": "Fedora Linux 41",
                       "kernelRelease": "6.11.4-301.fc41.x86_64", "machine": "x86_64",
                       "kernelVersion": "#1 SMP PREEMPT_DYNAMIC"}}

    def _current_pod(self, vmi):
        pods = self.launcher_pods(vmi)
        active = (vmi.get("status") or {}).get("activePods") or {}
        for p in pods:
            if p["metadata"]["uid"] in active:
                return p
        return pods[0] if pods else None

    def append_console_for_pod(self, ns, pod_name, text):
        key = (ns, pod_name, "guest-console-log")
        self.console_logs[key] = self.console_logs.get(key, "") + text

    def append_console(self, namespace, vmi_name, text):
        """Write to the serial console of a VMI, as the guest would."""
        vmi = self.store.raw(kv.VMI, namespace, vmi_name)
        pod = self._current_pod(vmi) if vmi else None
        if pod is None:
            raise KeyError(f"no launcher pod for {namespace}/{vmi_name}")
        self.append_console_for_pod(namespace, pod["metadata"]["name"], text)

    def guest_rebooted(self, vmi, soft):
        ns, name = kv.ns_name(vmi)
        self.reboots.append((ns, name, "soft" if soft else "hard"))
        pod = self._current_pod(vmi)
        if pod is not None:
            self.append_console_for_pod(ns, pod["metadata"]["name"],
                                        "\nreboot: Restarting system\n"
                                        f"{name} login: ")

    def _end_guest(self, namespace, name, phase):
        def apply(o):
            o["status"]["phase"] = phase
            meta.set_condition(o, "Ready", "False", "PodCompleted" if phase == "Succeeded"
                               else "PodFailed")
            return o
        vmi = self.store.mutate(kv.VMI, namespace, name, apply)
        for pod in self.launcher_pods(vmi):
            self.store.mutate(kv.POD, namespace, pod["metadata"]["name"],
                              lambda p: (p["status"].__setitem__("phase", phase), p)[1])

    def guest_shutdown(self, namespace, name):
        """The guest powered itself off: the VMI ends Succeeded (runStrategy Manual keeps it)."""
        self._end_guest(namespace, name, "Succeeded")

    def crash_vmi(self, namespace, name):
        """QEMU died or the node lost the guest: the VMI ends Failed."""
        self._end_guest(namespace, name, "Failed")

