"""os-migrations bodies: ``migration_type`` and links of running live
migrations from 2.23, ``uuid`` from 2.59, owners from 2.80."""
from keel.api.views import links
from keel.api.views.services import isotime

_BASE = ("created_at", "dest_compute", "dest_host", "dest_node", "id",
         "instance_uuid", "new_instance_type_id", "old_instance_type_id",
         "source_compute", "source_node", "status", "updated_at")
_LIVE_IN_PROGRESS = ("queued", "preparing", "running", "post-migrating")


def _get(mig, key):
    return getattr(mig, key) if mig.obj_attr_is_set(key) else None


def migration(req, mig):
    body = {key: _get(mig, key) for key in _BASE}
    body["created_at"] = isotime(body["created_at"])
    body["updated_at"] = isotime(body["updated_at"])
    if req.version_matches("2.23"):
        body["migration_type"] = mig.migration_type
        if mig.migration_type == "live-migration" and \
                mig.status in _LIVE_IN_PROGRESS:
            body["links"] = links.resource_links(
                req, f"servers/{mig.instance_uuid}/migrations", mig.id)
    if req.version_matches("2.59"):
        body["uuid"] = mig.uuid
    if req.version_matches("2.80"):
        body["user_id"] = _get(mig, "user_id")
        body["project_id"] = _get(mig, "project_id")
    return body
