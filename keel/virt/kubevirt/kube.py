"""The one module that talks to Kubernetes (official ``kubernetes`` client).

Everything else in the driver works on plain dicts through ``KubeClient``:
custom resources through ``CustomObjectsApi``, core objects through
``CoreV1Api``, KubeVirt's aggregated subresources (virt-api is not a CRD
subresource) through ``ApiClient.call_api``.  Here, and only here:

- configuration from ``[kubevirt]`` (kubeconfig file or in-cluster);
- transient failures (5xx, 429, dropped connections) retried with backoff;
- 404 turned into ``None`` for reads and into success for deletes;
- read-modify-write retried on 409 Conflict with a fresh read;
- list + watch streams with ``resourceVersion`` and bookmarks, 410 Gone
  surfaced as ``Gone`` so the caller re-lists.
"""
import collections
import json
import logging
import time

import urllib3
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes.watch.watch import iter_resp_lines

LOG = logging.getLogger(__name__)

Kind = collections.namedtuple("Kind", "group version plural namespaced")

VM = Kind("kubevirt.io", "v1", "virtualmachines", True)
VMI = Kind("kubevirt.io", "v1", "virtualmachineinstances", True)
MIGRATION = Kind("kubevirt.io", "v1", "virtualmachineinstancemigrations",
                 True)
DATAVOLUME = Kind("cdi.kubevirt.io", "v1beta1", "datavolumes", True)
SNAPSHOT = Kind("snapshot.kubevirt.io", "v1beta1", "virtualmachinesnapshots",
                True)
EXPORT = Kind("export.kubevirt.io", "v1beta1", "virtualmachineexports", True)
NODE = Kind("", "v1", "nodes", False)
PVC = Kind("", "v1", "persistentvolumeclaims", True)
PV = Kind("", "v1", "persistentvolumes", False)
POD = Kind("", "v1", "pods", True)
SECRET = Kind("", "v1", "secrets", True)

# CoreV1Api method names are built from these.
_SINGULAR = {"nodes": "node", "pods": "pod", "secrets": "secret",
             "persistentvolumeclaims": "persistent_volume_claim",
             "persistentvolumes": "persistent_volume"}

SUBRESOURCES = "/apis/subresources.kubevirt.io/v1"
_RETRIABLE = (429, 500, 502, 503, 504)
_MERGE_PATCH = "application/merge-patch+json"


class KubeError(Exception):
    """A Kubernetes API error: ``status`` (HTTP code), ``reason`` and the
    server's ``message``."""

    def __init__(self, status, reason="", message=""):
        self.status = status
        self.reason = reason
        self.message = message or reason
        super().__init__("Kubernetes API error %s %s: %s"
                         % (status, reason, self.message))


class Gone(KubeError):
    """410: the resourceVersion is too old to watch from; re-list."""


def _error(exc):
    """KubeError from an ApiException, with the Status body's message."""
    status = getattr(exc, "status", 0) or 0
    reason, message = getattr(exc, "reason", "") or "", ""
    try:
        body = json.loads(exc.body or "{}")
        reason = body.get("reason") or reason
        message = body.get("message") or ""
    except (TypeError, ValueError):
        pass
    cls = Gone if status == 410 else KubeError
    return cls(status, reason, message)


def _load_client(opts):
    """An ApiClient from [kubevirt]: in-cluster, or a kubeconfig file."""
    if opts.in_cluster or (not opts.kubeconfig and _in_cluster_available()):
        cfg = k8s.Configuration()
        k8s_config.load_incluster_config(client_configuration=cfg)
        return k8s.ApiClient(cfg), None
    path = opts.kubeconfig or None
    contexts, active = k8s_config.list_kube_config_contexts(config_file=path)
    ctx_name = opts.context or (active or {}).get("name")
    default_ns = None
    for ctx in contexts or []:
        if ctx.get("name") == ctx_name:
            default_ns = (ctx.get("context") or {}).get("namespace")
    api = k8s_config.new_client_from_config(config_file=path,
                                            context=opts.context)
    return api, default_ns


def _in_cluster_available():
    import os
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


class KubeClient(object):
    def __init__(self, conf, api_client=None):
        self.opts = conf.kubevirt
        default_ns = None
        if api_client is None:
            api_client, default_ns = _load_client(self.opts)
        self.api = api_client
        self.namespace = self.opts.namespace or default_ns or "default"
        self.image_namespace = self.opts.image_cache_namespace or \
            self.namespace
        self.custom = k8s.CustomObjectsApi(api_client)
        self.core = k8s.CoreV1Api(api_client)
        self.timeout = self.opts.request_timeout

    def close(self):
        self.api.close()

    # -- retries ------------------------------------------------------------
    def _call(self, fn, *args, **kwargs):
        """Run one API call; retry what a later attempt may fix."""
        delay = self.opts.api_retry_interval
        attempts = self.opts.api_retries + 1
        for attempt in range(attempts):
            try:
                return fn(*args, _request_timeout=self.timeout, **kwargs)
            except k8s.ApiException as exc:
                err = _error(exc)
                if err.status not in _RETRIABLE or attempt == attempts - 1:
                    raise err from None
                LOG.warning("Kubernetes API %s %s; retrying", err.status,
                            err.reason)
            except (urllib3.exceptions.HTTPError, OSError) as exc:
                if attempt == attempts - 1:
                    raise KubeError(503, "ConnectionError", str(exc)) \
                        from None
                LOG.warning("Kubernetes API unreachable (%s); retrying", exc)
            time.sleep(delay)
            delay *= 2

    def _raw(self, method, path, body=None, query=None):
        """A request the generated APIs do not cover; returns parsed JSON."""
        def do(_request_timeout):
            params = self.api.param_serialize(
                method, path, query_params=list((query or {}).items()),
                body=body, auth_settings=["BearerToken"],
                header_params={"Content-Type": "application/json",
                               "Accept": "application/json"})
            resp = self.api.call_api(*params,
                                     _request_timeout=_request_timeout)
            data = resp.read()
            if not 200 <= resp.status < 300:
                raise k8s.ApiException(http_resp=resp)
            return _json(data)
        return self._call(do)

    # -- custom resources and core objects, as dicts ------------------------
    def _ns(self, kind, namespace):
        return (namespace or self.namespace) if kind.namespaced else None

    def get(self, kind, name, namespace=None):
        """The object, or None when it does not exist."""
        ns = self._ns(kind, namespace)
        try:
            if kind.group:
                return self._call(self.custom.get_namespaced_custom_object,
                                  kind.group, kind.version, ns, kind.plural,
                                  name)
            return self._core("read", kind, name, ns)
        except KubeError as err:
            if err.status == 404:
                return None
            raise

    def list(self, kind, namespace=None, label_selector=None,
             field_selector=None, all_namespaces=False):
        """``(items, resourceVersion)`` of one consistent list."""
        data = self._list(kind, namespace, label_selector, field_selector,
                          all_namespaces)
        return data.get("items") or [], data["metadata"]["resourceVersion"]

    def _list(self, kind, namespace, label_selector, field_selector,
              all_namespaces, **extra):
        kwargs = dict(extra)
        if label_selector:
            kwargs["label_selector"] = label_selector
        if field_selector:
            kwargs["field_selector"] = field_selector
        ns = None if all_namespaces else self._ns(kind, namespace)
        if kind.group:
            if ns is None:
                return self._call(self.custom.list_cluster_custom_object,
                                  kind.group, kind.version, kind.plural,
                                  **kwargs)
            return self._call(self.custom.list_namespaced_custom_object,
                              kind.group, kind.version, ns, kind.plural,
                              **kwargs)
        return self._core("list", kind, None, ns, **kwargs)

    def create(self, kind, body, namespace=None):
        ns = self._ns(kind, namespace)
        if kind.group:
            return self._call(self.custom.create_namespaced_custom_object,
                              kind.group, kind.version, ns, kind.plural, body)
        return self._core("create", kind, None, ns, body=body)

    def delete(self, kind, name, namespace=None, propagation="Foreground"):
        """Delete; True if it was there (already gone is not an error)."""
        ns = self._ns(kind, namespace)
        opts = {"propagationPolicy": propagation}
        try:
            if kind.group:
                self._call(self.custom.delete_namespaced_custom_object,
                           kind.group, kind.version, ns, kind.plural, name,
                           body=opts)
            else:
                self._core("delete", kind, name, ns,
                           propagation_policy=propagation)
            return True
        except KubeError as err:
            if err.status == 404:
                return False
            raise

    def patch(self, kind, name, patch, namespace=None):
        """JSON merge patch (custom resources refuse strategic merge)."""
        ns = self._ns(kind, namespace)
        if kind.group:
            return self._call(self.custom.patch_namespaced_custom_object,
                              kind.group, kind.version, ns, kind.plural,
                              name, patch, _content_type=_MERGE_PATCH)
        return self._core("patch", kind, name, ns, body=patch,
                          _content_type=_MERGE_PATCH)

    def update(self, kind, name, mutate, namespace=None):
        """Read, ``mutate(obj)`` (returns the new object, or None for no
        change), replace with the read's resourceVersion; on 409 read again
        and re-apply.  Returns the stored object, None if it is gone."""
        ns = self._ns(kind, namespace)
        for _attempt in range(self.opts.conflict_retries + 1):
            obj = self.get(kind, name, ns)
            if obj is None:
                return None
            new = mutate(obj)
            if new is None:
                return obj
            try:
                if kind.group:
                    return self._call(
                        self.custom.replace_namespaced_custom_object,
                        kind.group, kind.version, ns, kind.plural, name, new)
                return self._core("replace", kind, name, ns, body=new)
            except KubeError as err:
                if err.status != 409:
                    raise
                LOG.debug("Conflict updating %s/%s; re-reading", kind.plural,
                          name)
        raise KubeError(409, "Conflict",
                        "%s/%s kept changing under us" % (kind.plural, name))

    def _core(self, verb, kind, name, ns, **kwargs):
        """CoreV1Api call by verb and kind, answered as a dict."""
        singular = _SINGULAR[kind.plural]
        scope = "namespaced_" if ns else ""
        if verb == "list" and not ns and kind.namespaced:
            fn = getattr(self.core, "list_%s_for_all_namespaces" % singular)
        else:
            fn = getattr(self.core, "%s_%s%s" % (verb, scope, singular))
        args = [a for a in (name, ns) if a is not None]
        body = kwargs.pop("body", None)
        if body is not None:
            args.append(body)
        return self._call(_dict_result(fn), *args, **kwargs)

    # -- KubeVirt subresources and logs ------------------------------------
    def subresource(self, plural, name, action, body=None, method="PUT"):
        """e.g. ``("virtualmachines", uuid, "start")``."""
        path = "%s/namespaces/%s/%s/%s/%s" % (SUBRESOURCES, self.namespace,
                                              plural, name, action)
        return self._raw(method, path, body=body if body is not None else {})

    def pod_log(self, name, container, limit_bytes=None):
        kwargs = {"container": container}
        if limit_bytes:
            kwargs["limit_bytes"] = limit_bytes

        def read(*args, **kw):
            resp = self.core.read_namespaced_pod_log(
                *args, _preload_content=False, **kw)
            data = resp.data
            if not 200 <= resp.status < 300:
                raise k8s.ApiException(http_resp=resp)
            return data.decode("utf-8", "replace")
        return self._call(read, name, self.namespace, **kwargs)

    def download(self, url, headers, ca_cert=None, chunk_size=1024 * 1024):
        """Open ``url`` (a VirtualMachineExport link) now, so an HTTP error
        is raised here, and return an iterator over its body in chunks.
        ``ca_cert`` (PEM, the export's ``links.*.cert``) verifies the export
        server; without it the API client's TLS settings apply."""
        if ca_cert:
            pool = urllib3.PoolManager(ca_cert_data=ca_cert)
        else:
            pool = self.api.rest_client.pool_manager
        try:
            resp = pool.request("GET", url, headers=headers,
                                preload_content=False,
                                timeout=urllib3.Timeout(connect=self.timeout,
                                                        read=self.timeout))
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise KubeError(503, "ConnectionError", str(exc)) from None
        if not 200 <= resp.status < 300:
            body = resp.data[:200]
            resp.release_conn()
            raise KubeError(resp.status, resp.reason or "",
                            "GET %s: %s" % (url, body))

        def chunks():
            try:
                for chunk in resp.stream(chunk_size):
                    yield chunk
            finally:
                resp.release_conn()
        return chunks()

    # -- watch ----------------------------------------------------------------
    def watch(self, kind, resource_version, label_selector=None,
              namespace=None, on_response=None, field_selector=None,
              timeout_seconds=None):
        """Yield ``(type, object)`` from one watch request starting after
        ``resource_version``, BOOKMARKs included, until the server ends the
        stream (after ``timeout_seconds``, default [kubevirt]/watch_timeout).
        410 (as status or ERROR event) raises ``Gone``."""
        seconds = int(timeout_seconds or self.opts.watch_timeout)
        kwargs = {"watch": True, "resource_version": resource_version,
                  "allow_watch_bookmarks": True,
                  "timeout_seconds": max(1, seconds),
                  "_preload_content": False}
        if label_selector:
            kwargs["label_selector"] = label_selector
        if field_selector:
            kwargs["field_selector"] = field_selector
        ns = self._ns(kind, namespace)
        # Read timeout past the server's timeoutSeconds: a silent
        # connection is noticed, a quiet watch is not cut short.
        kwargs["_request_timeout"] = (self.timeout, max(1, seconds) + 30)
        try:
            if kind.group:
                resp = self.custom.list_namespaced_custom_object(
                    kind.group, kind.version, ns, kind.plural, **kwargs)
            else:
                fn = getattr(self.core,
                             "list_namespaced_%s" % _SINGULAR[kind.plural])
                resp = fn(ns, **kwargs)
        except k8s.ApiException as exc:
            raise _error(exc) from None
        if on_response is not None:
            on_response(resp)
        try:
            if not 200 <= resp.status < 300:
                raise _error(k8s.ApiException(http_resp=resp))
            for line in iter_resp_lines(resp):
                if not line:
                    continue
                event = json.loads(line)
                if event.get("type") == "ERROR":
                    status = event.get("object") or {}
                    cls = Gone if status.get("code") == 410 else KubeError
                    raise cls(status.get("code", 500), status.get("reason"),
                              status.get("message"))
                yield event["type"], event["object"]
        finally:
            resp.release_conn()


def _json(data):
    if not data:
        return {}
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    return json.loads(data)


def _dict_result(fn):
    """Call a CoreV1Api method without its model classes: the raw JSON."""
    def call(*args, **kwargs):
        resp = fn(*args, _preload_content=False, **kwargs)
        data = resp.data
        if not 200 <= resp.status < 300:
            raise k8s.ApiException(http_resp=resp)
        return _json(data)
    return call
