"""The all-in-one's image catalogue and its first image.

On first start the catalogue gets one small image, so a server boots right
away: a tiny empty qcow2 disk made here (no download), named as the CirrOS
image devstack registers, and marked with ``kubevirt_container_disk`` so the
KubeVirt driver boots it from the CirrOS container disk. A marker file
records the seeding: an operator who deletes the image does not get it
back on the next start.
"""
import os
import struct

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

SEED_NAME = "cirros-0.6.3-x86_64-disk"
SEED_CONTAINER_DISK = "quay.io/kubevirt/cirros-container-disk-demo:latest"
SEED_VIRTUAL_SIZE = 112 * 1024 * 1024
SEED_MARKER = ".seeded"


def catalogue_dir(state_dir):
    return os.path.join(state_dir, "images")


def empty_qcow2(virtual_size=SEED_VIRTUAL_SIZE, cluster_bits=12):
    """A valid, empty qcow2 (version 2) image of ``virtual_size`` bytes:
    header, L1 table, refcount table and one refcount block, one cluster
    each."""
    cluster = 1 << cluster_bits
    per_l2 = (cluster // 8) * cluster
    l1_size = -(-virtual_size // per_l2)
    assert l1_size * 8 <= cluster, "L1 table must fit in one cluster"
    header = struct.pack(
        ">IIQIIQIIQQIIQ",
        0x514649FB, 2,          # magic "QFI\xfb", version
        0, 0,                   # no backing file
        cluster_bits, virtual_size,
        0,                      # no encryption
        l1_size, cluster,       # L1 table in cluster 1
        2 * cluster, 1,         # refcount table in cluster 2, 1 cluster
        0, 0)                   # no snapshots
    refcount_table = struct.pack(">Q", 3 * cluster)
    refcount_block = struct.pack(">4H", 1, 1, 1, 1)  # clusters 0-3 in use
    image = bytearray(4 * cluster)
    image[0:len(header)] = header
    image[2 * cluster:2 * cluster + 8] = refcount_table
    image[3 * cluster:3 * cluster + 8] = refcount_block
    return bytes(image)


def seed(path):
    """Register the first image unless this catalogue was seeded before.
    Returns the new image's dict, or None."""
    from keel.image import local
    marker = os.path.join(path, SEED_MARKER)
    if os.path.exists(marker):
        return None
    api = local.LocalImageAPI(path)
    existing = api.get_all(None, filters={"name": SEED_NAME})
    image = existing[0] if existing else api.create(None, {
        "name": SEED_NAME, "disk_format": "qcow2",
        "container_format": "bare", "visibility": "public",
        "min_disk": 0, "min_ram": 0,
        "properties": {"kubevirt_container_disk": SEED_CONTAINER_DISK,
                       "os_distro": "cirros", "os_type": "linux"},
    }, data=empty_qcow2())
    with open(marker, "w") as fh:
        fh.write(image["id"] + "\n")
    LOG.info("Seeded image %s (%s) into %s", image["id"], SEED_NAME, path)
    return image
