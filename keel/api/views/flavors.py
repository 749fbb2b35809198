"""Flavor bodies per microversion.

Before 2.75 a swap of 0 is shown as ``""``; 2.55 adds ``description``;
2.61 ``extra_specs`` (when the caller may read them); 2.102 drops
``rxtx_factor`` and ``OS-FLV-DISABLED:disabled``.
"""
from keel.api.views import links

COLLECTION = "flavors"


def _basic(req, flavor, with_description):
    body = {"id": flavor.flavorid, "name": flavor.name,
            "links": links.resource_links(req, COLLECTION, flavor.flavorid)}
    if with_description:
        body["description"] = flavor.description
    return body


def show(req, flavor, include_extra_specs=False):
    with_description = req.version_matches("2.55")
    body = _basic(req, flavor, with_description)
    body.update({
        "ram": flavor.memory_mb,
        "disk": flavor.root_gb,
        "swap": flavor.swap if req.version_matches("2.75") else
        (flavor.swap or ""),
        "vcpus": flavor.vcpus,
        "OS-FLV-EXT-DATA:ephemeral": flavor.ephemeral_gb,
        "os-flavor-access:is_public": flavor.is_public,
    })
    if not req.version_matches("2.102"):
        body["rxtx_factor"] = flavor.rxtx_factor or ""
        body["OS-FLV-DISABLED:disabled"] = flavor.disabled
    if include_extra_specs:
        body["extra_specs"] = dict(flavor.extra_specs)
    return {"flavor": body}


def _page_links(req, flavors, name):
    page = [{"id": f.flavorid} for f in flavors]
    return links.collection_links(req, page, name, id_key="id")


def index(req, flavors):
    with_description = req.version_matches("2.55")
    body = {"flavors": [_basic(req, f, with_description) for f in flavors]}
    nxt = _page_links(req, flavors, COLLECTION)
    if nxt:
        body["flavors_links"] = nxt
    return body


def detail(req, flavors, include_extra_specs=False):
    body = {"flavors": [show(req, f, include_extra_specs)["flavor"]
                        for f in flavors]}
    nxt = _page_links(req, flavors, COLLECTION + "/detail")
    if nxt:
        body["flavors_links"] = nxt
    return body


def access_list(flavor):
    return {"flavor_access": [
        {"flavor_id": flavor.flavorid, "tenant_id": project_id}
        for project_id in flavor.projects]}
