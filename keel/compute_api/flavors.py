"""Flavor operations: create/list/show/delete, description, extra specs and
project access, over keel.objects.Flavor."""
from oslo_utils import strutils
from oslo_utils import uuidutils

from keel import objects


def create(context, name, memory_mb, vcpus, root_gb, ephemeral_gb=0,
           flavorid=None, swap=0, rxtx_factor=1.0, is_public=True,
           description=None):
    """A new flavor; the API schema has checked ranges and types, the
    values may still be the numeric strings it accepts."""
    if flavorid is None or flavorid == "":
        flavorid = uuidutils.generate_uuid()
    flavor = objects.Flavor(
        context=context, name=name.strip(), flavorid=str(flavorid),
        memory_mb=int(memory_mb), vcpus=int(vcpus), root_gb=int(root_gb),
        ephemeral_gb=int(ephemeral_gb), swap=int(swap),
        rxtx_factor=float(rxtx_factor), disabled=False,
        is_public=strutils.bool_from_string(is_public, strict=True),
        description=description, extra_specs={}, projects=[])
    flavor.create()
    return flavor


def get(context, flavorid):
    return objects.Flavor.get_by_flavor_id(context, flavorid)


def get_all(context, filters, sort_key, sort_dir, limit, marker):
    return objects.FlavorList.get_all(
        context, filters=filters, sort_key=sort_key, sort_dir=sort_dir,
        limit=limit, marker=marker)


def destroy(context, flavorid):
    objects.Flavor(context=context, flavorid=flavorid).destroy()


def update_description(context, flavorid, description):
    flavor = get(context, flavorid)
    flavor.description = description
    flavor.save()
    return flavor


def set_extra_specs(context, flavor, specs):
    """Add or replace ``specs`` (values already strings)."""
    flavor.save_extra_specs(to_add=specs)
    flavor.extra_specs = dict(flavor.extra_specs, **specs)
    flavor.obj_reset_changes(["extra_specs"])
    return flavor.extra_specs


def delete_extra_spec(context, flavor, key):
    flavor.save_extra_specs(to_delete=[key])
