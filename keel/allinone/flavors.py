"""The all-in-one's first flavors: the classic m1.* set devstack creates
(Nova itself ships none), so that ``openstack server create --flavor
m1.tiny --image cirros-0.6.3-x86_64-disk`` works right after the first
start. Seeded once, recorded by a marker file: flavors an operator deletes
stay deleted."""
import os

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

MARKER = ".flavors-seeded"
# (flavorid, name, memory_mb, vcpus, root_gb)
FLAVORS = (
    ("1", "m1.tiny", 512, 1, 1),
    ("2", "m1.small", 2048, 1, 20),
    ("3", "m1.medium", 4096, 2, 40),
    ("4", "m1.large", 8192, 4, 80),
    ("5", "m1.xlarge", 16384, 8, 160),
)


def seed(state_dir):
    """Create the flavors unless seeded before; returns the names made."""
    from keel import context as keel_context
    from keel import exception
    from keel import objects
    marker = os.path.join(state_dir, MARKER)
    if os.path.exists(marker):
        return []
    ctxt = keel_context.get_admin_context()
    made = []
    for flavorid, name, ram, vcpus, disk in FLAVORS:
        try:
            objects.Flavor(ctxt, flavorid=flavorid, name=name, vcpus=vcpus,
                           memory_mb=ram, root_gb=disk, ephemeral_gb=0,
                           swap=0, is_public=True, disabled=False).create()
            made.append(name)
        except (exception.FlavorExists, exception.FlavorIdExists):
            pass  # an operator's own flavor of that name or id wins
    with open(marker, "w") as fh:
        fh.write("\n".join(made) + "\n")
    LOG.info("Seeded flavors: %s", ", ".join(made) or "none")
    return made
