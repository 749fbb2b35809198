"""Objects: PciDevicePool, PciDevicePoolList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class PciDevicePool(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'count': fields.IntegerField(),
        'numa_node': fields.IntegerField(nullable=True),
        'product_id': fields.StringField(),
        'tags': fields.DictOfNullableStringsField(),
        'vendor_id': fields.StringField(),
    }


@base.KeelObjectRegistry.register
class PciDevicePoolList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('PciDevicePool'),
    }


def from_pci_stats(pci_stats):
    """compute_nodes.pci_stats (a PciDevicePoolList primitive, or Nova's
    older list of pool dicts) -> PciDevicePoolList, or None."""
    from oslo_serialization import jsonutils

    if isinstance(pci_stats, str):
        pci_stats = jsonutils.loads(pci_stats)
    if not pci_stats:
        return None
    if isinstance(pci_stats, dict) and "nova_object.name" in pci_stats:
        return PciDevicePoolList.obj_from_primitive(pci_stats)
    pools = []
    for pool in pci_stats:
        pool = dict(pool)
        known = {k: pool.pop(k) for k in ("product_id", "vendor_id",
                                          "numa_node", "count") if k in pool}
        tags = {k: None if v is None else str(v) for k, v in pool.items()}
        pools.append(PciDevicePool(tags=tags, **known))
    return PciDevicePoolList(objects=pools)
