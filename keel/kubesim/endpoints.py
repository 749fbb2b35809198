"""Non-object endpoints: pod logs (the launcher's guest-console-log) and the export server's
volume downloads. Mixed into KubeSim."""
import base64
import gzip

from . import errors
from . import kubevirt as kv


class EndpointsMixin:
    def serve_pod_log(self, req, ns, name):
        pod = self.store.get(kv.POD, ns, name)
        names = [c["name"] for c in (pod.get("spec") or {}).get("containers") or []]
        container = req.query.get("container")
        if not container:
            if len(names) != 1:
                raise errors.bad_request(f"a container name must be specified for pod {name}, "
                                         f"choose one of: [{' '.join(names)}]")
            container = names[0]
        if container not in names:
            raise errors.bad_request(f"container {container} is not valid for pod {name}")
        if (pod.get("status") or {}).get("phase") == "Pending":
            raise errors.bad_request(f'container "{container}" in pod "{name}" is waiting to '
                                     "start: ContainerCreating")
        text = self.console_logs.get((ns, name, container), "")
        if req.query.get("tailLines"):
            n = int(req.query["tailLines"])
            lines = text.splitlines(keepends=True)
            text = "".join(lines[-n:]) if n else ""
        data = text.encode()
        if req.query.get("limitBytes"):
            data = data[:int(req.query["limitBytes"])]
        req.handler.send_bytes(200, data, "text/plain")

    def serve_export(self, req, parts):
        # /kubesim/export/{ns}/{export}/volumes/{volume}/disk.img[.gz]
        if len(parts) != 7 or parts[4] != "volumes" or parts[6] not in ("disk.img",
                                                                          "disk.img.gz"):
            raise errors.ApiError(404, "NotFound", "no such export link")
        ns, name, vol = parts[2], parts[3], parts[5]
        exp = self.store.get(kv.EXPORT, ns, name)
        if (exp.get("status") or {}).get("phase") != "Ready":
            raise errors.ApiError(404, "NotFound", f"export {name} is not ready")
        secret = self.store.raw(kv.SECRET, ns, exp["status"].get("tokenSecretRef"))
        want = base64.b64decode(((secret or {}).get("data") or {}).get("token", "")).decode()
        if not want or req.headers.get("x-kubevirt-export-token") != want:
            raise errors.ApiError(401, "Unauthorized", "missing or wrong x-kubevirt-export-token")
        source = self.export_sources.get((ns, name, vol), vol)
        data = self.export_data.get((ns, source), f"KUBESIM-DISK {ns}/{vol}\n".encode())
        if parts[6].endswith(".gz"):
            data = gzip.compress(data)
        req.handler.send_bytes(200, data, "application/octet-stream")

