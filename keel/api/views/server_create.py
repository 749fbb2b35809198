"""The POST /servers answer: the new server's id, links, disk config and
the security groups it was asked with (Nova echoes the request's, or
``default``), or only the reservation id."""
from keel.api.views import links

COLLECTION = "servers"


def created(req, instance, security_groups, admin_password=None):
    body = {
        "id": instance.uuid,
        "links": links.resource_links(req, COLLECTION, instance.uuid),
        "OS-DCF:diskConfig": "AUTO" if instance.auto_disk_config
        else "MANUAL",
        "security_groups": security_groups or [{"name": "default"}],
    }
    if admin_password is not None:
        body["adminPass"] = admin_password
    return {"server": body}


def self_href(body):
    for link in body["server"]["links"]:
        if link["rel"] == "self":
            return link["href"]
    return None
