"""[kubevirt]: how the KubeVirt virt driver reaches its Kubernetes cluster."""
from oslo_config import cfg

GROUP = "kubevirt"

group = cfg.OptGroup(GROUP, title="KubeVirt driver options")

opts = [
    cfg.StrOpt("kubeconfig",
               help="Path of a kubeconfig file. Unset: in-cluster service "
                    "account credentials (or $KUBECONFIG / ~/.kube/config "
                    "when not running in a pod)."),
    cfg.StrOpt("context",
               help="Context of the kubeconfig to use (default: its "
                    "current-context)."),
    cfg.BoolOpt("in_cluster", default=False,
                help="Use the pod's service account even when a kubeconfig "
                     "is configured."),
    cfg.StrOpt("namespace",
               help="Namespace of the guests' VirtualMachines, DataVolumes "
                    "and Secrets. Default: the kubeconfig context's "
                    "namespace, else 'default'."),
    cfg.StrOpt("image_cache_namespace",
               help="Namespace of the per-image golden PVCs that root disks "
                    "are cloned from. Default: [kubevirt]/namespace."),
    cfg.StrOpt("storage_class",
               help="StorageClass of the DataVolumes (default: the "
                    "cluster's default class)."),
    cfg.ListOpt("volume_access_modes", default=["ReadWriteMany"],
                help="Access modes of the guest DataVolumes; ReadWriteMany "
                     "keeps guests live-migratable."),
    cfg.StrOpt("glance_image_url",
               default="http://127.0.0.1:9292/v2/images/{image_id}/file",
               help="URL CDI imports a Glance image from; {image_id} is "
                    "replaced by the image id."),
    cfg.StrOpt("network_name", default="default",
               help="Name of the guest's pod network interface."),
    cfg.IntOpt("request_timeout", default=30, min=1,
               help="Seconds before a Kubernetes API request times out."),
    cfg.IntOpt("api_retries", default=3, min=0,
               help="Retries of a Kubernetes API request that failed with "
                    "a 5xx, 429, or a connection error."),
    cfg.FloatOpt("api_retry_interval", default=0.5, min=0,
                 help="Seconds before the first retry; doubled each time."),
    cfg.IntOpt("conflict_retries", default=5, min=0,
               help="Re-reads of an object whose update hit 409 Conflict."),
    cfg.IntOpt("watch_timeout", default=300, min=1,
               help="timeoutSeconds of each watch request; the watch is "
                    "re-opened from the last resourceVersion afterwards."),
    cfg.IntOpt("spawn_timeout", default=900, min=1,
               help="Seconds a new guest may take to reach Running "
                    "(image import and clone included)."),
    cfg.IntOpt("power_timeout", default=300, min=1,
               help="Seconds a power operation may take to be observed."),
    cfg.IntOpt("delete_timeout", default=120, min=0,
               help="Seconds destroy waits for the VirtualMachine to go."),
    cfg.IntOpt("migration_timeout", default=3600, min=1,
               help="Seconds a live migration may take before it is "
                    "aborted."),
    cfg.IntOpt("reboot_timeout", default=120, min=0,
               help="Seconds a soft reboot may take before a hard restart "
                    "replaces it."),
    cfg.BoolOpt("cluster_provider", default=False,
                help="Report the whole cluster as one compute node and "
                     "resource provider (VMware-style) instead of one per "
                     "schedulable Kubernetes node."),
    cfg.StrOpt("cluster_node_name", default="kubevirt-cluster",
               help="Node name of the cluster-wide provider."),
    cfg.IntOpt("disk_gb", default=0, min=0,
               help="DISK_GB total per node; 0 means the node's "
                    "ephemeral-storage allocatable."),
]


def register_opts(conf):
    # A fresh OptGroup per ConfigOpts: a shared one would share overrides.
    conf.register_group(cfg.OptGroup(GROUP, title=group.title))
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {group: opts}
