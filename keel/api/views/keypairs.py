"""Key pair bodies: ``type`` from 2.2; show adds the record's bookkeeping
fields; create answers with the owner (and a generated private key)."""
from keel.api.views import links

_TIME = "%Y-%m-%dT%H:%M:%S.%f"


def _time(value):
    return value.strftime(_TIME) if value else None


def _basic(req, keypair):
    body = {"name": keypair.name, "public_key": keypair.public_key,
            "fingerprint": keypair.fingerprint}
    if req.version_matches("2.2"):
        body["type"] = keypair.type
    return body


def created(req, keypair, private_key=None):
    body = _basic(req, keypair)
    body["user_id"] = keypair.user_id
    if private_key is not None:
        body["private_key"] = private_key
    return {"keypair": body}


def show(req, keypair):
    body = _basic(req, keypair)
    body.update({"user_id": keypair.user_id, "id": keypair.id,
                 "deleted": False, "deleted_at": None,
                 "created_at": _time(keypair.created_at),
                 "updated_at": _time(keypair.updated_at)})
    return {"keypair": body}


def index(req, keypairs, paged=False):
    items = [_basic(req, k) for k in keypairs]
    body = {"keypairs": [{"keypair": item} for item in items]}
    if paged:
        nxt = links.collection_links(req, items, "os-keypairs",
                                     id_key="name")
        if nxt:
            body["keypairs_links"] = nxt
    return body
