"""Labels marking objects as ours; the watches select on them."""
import hashlib
import re

MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGED_BY_VALUE = "openkeel-compute"
INSTANCE = "keel.openstack.org/instance-uuid"
HOST = "keel.openstack.org/host"
NODE = "keel.openstack.org/node"
IMAGE = "keel.openstack.org/image-id"

# Golden images are shared by every compute service of the cluster.
IMAGE_SELECTOR = "%s=%s,%s" % (MANAGED_BY, MANAGED_BY_VALUE, IMAGE)

_VALID = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")


def label_value(value):
    """``value`` if it is a valid label value, else a stable digest of it
    (a label value is at most 63 characters of a restricted alphabet)."""
    value = value or ""
    if not value or _VALID.match(value):
        return value
    return "h-" + hashlib.sha256(value.encode()).hexdigest()[:40]


def instance_labels(instance_uuid, host, node):
    return {MANAGED_BY: MANAGED_BY_VALUE, INSTANCE: instance_uuid,
            HOST: label_value(host), NODE: label_value(node)}


def image_labels(image_id, host):
    return {MANAGED_BY: MANAGED_BY_VALUE, IMAGE: image_id,
            HOST: label_value(host)}


def selector(host):
    """Label selector of the guests of one compute service."""
    return "%s=%s,%s=%s" % (MANAGED_BY, MANAGED_BY_VALUE, HOST,
                            label_value(host))
