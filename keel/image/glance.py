"""Nova's image API over Glance v2 (keel.clients.glance), with Nova's
filter translation and exception mapping."""
import logging

from keel.clients import glance as glance_client
from keel import exception
from keel.image import convert
from keel.image import rules

LOG = logging.getLogger(__name__)


def query_params(kwargs):
    """Glance v2 query parameters from Nova's get_all arguments (as Nova:
    ``property-X`` becomes ``X``, ``changes-since`` becomes
    ``updated_at=gte:...``, ``is_public`` becomes a visibility)."""
    params = {}
    for key in ("marker", "page_size", "sort_key", "sort_dir"):
        if kwargs.get(key):
            params[key] = kwargs[key]
    for key, value in (kwargs.get("filters") or {}).items():
        if key.startswith("property-"):
            params[key[len("property-"):]] = value
        elif key == "changes-since":
            params["updated_at"] = "gte:%s" % value
        elif key == "is_public":
            flag = str(value).lower()
            if flag in ("true", "1"):
                params["visibility"] = "public"
            elif flag in ("false", "0"):
                params["visibility"] = "private"
        else:
            params[key] = value
    return params


def _translate(image_id, exc):
    if isinstance(exc, glance_client.HTTPError):
        if exc.status in (401, 403):
            return exception.ImageNotAuthorized(image_id=image_id)
        if exc.status == 404:
            return exception.ImageNotFound(image_id=image_id)
        if exc.status == 400:
            return exception.ImageBadRequest(image_id=image_id,
                                             response=exc.text)
        if exc.status == 413:
            return exception.ImageQuotaExceeded(image_id=image_id)
    return exc


def _translate_plain(exc):
    if isinstance(exc, glance_client.HTTPError):
        if exc.status in (401, 403):
            return exception.Forbidden(exc.text)
        if exc.status == 404:
            return exception.NotFound(exc.text)
        if exc.status == 400:
            return exception.Invalid(exc.text)
    return exc


def _available(context, doc):
    """Nova's check for a Glance without authentication: without a token,
    only public images and the caller's own are visible."""
    if getattr(context, "auth_token", None) or context is None or \
            getattr(context, "is_admin", False):
        return True
    if doc.get("visibility") == "public":
        return True
    project = getattr(context, "project_id", None)
    for key in ("owner", "owner_id", "project_id"):
        if project and doc.get(key):
            return str(doc[key]) == str(project)
    user = doc.get("user_id")
    return user is not None and str(user) == str(
        getattr(context, "user_id", None))


class GlanceImageAPI:
    def __init__(self, client=None):
        self.client = client or glance_client.GlanceClient()

    def get(self, context, image_id, include_locations=False,
            show_deleted=True):
        try:
            doc = self.client.get_image(context, image_id)
        except glance_client.HTTPError as exc:
            raise _translate(image_id, exc)
        if not show_deleted and doc.get("status") == "deleted":
            raise exception.ImageNotFound(image_id=image_id)
        if not _available(context, doc):
            raise exception.ImageNotFound(image_id=image_id)
        return convert.from_glance(doc, include_locations=include_locations)

    def get_all(self, context, **kwargs):
        params = query_params(kwargs)
        limit = kwargs.get("limit")
        try:
            docs = self.client.list_images(
                context, params, limit=int(limit) if limit else None)
        except glance_client.HTTPError as exc:
            raise _translate_plain(exc)
        return [convert.from_glance(d) for d in docs
                if _available(context, d)]

    def create(self, context, image_meta, data=None):
        image_meta, data = rules.force_activate(image_meta, data)
        doc = convert.to_glance(image_meta)
        if image_meta.get("id"):
            doc["id"] = image_meta["id"]
        location = image_meta.get("location")
        try:
            created = self.client.create_image(context, doc)
            image_id = created["id"]
            if location:
                created = self.client.add_location(context, image_id,
                                                   location)
            if data is not None:
                self.client.upload(context, image_id, data)
                created = self.client.get_image(context, image_id)
        except glance_client.HTTPError as exc:
            raise _translate(image_meta.get("id"), exc)
        return convert.from_glance(created)

    def update(self, context, image_id, image_meta, data=None,
               purge_props=True):
        changes = convert.to_glance(image_meta)
        changes.pop("id", None)
        try:
            remove = ()
            if purge_props:
                # Glance v2 removes only what is named: name the props
                # that are gone, as Nova does.
                current = self.client.get_image(context, image_id)
                wanted = set((image_meta.get("properties") or {}))
                remove = [k for k in current
                          if k not in convert.BASE_ATTRIBUTES and
                          k not in wanted]
            doc = self.client.update_image(context, image_id, changes,
                                           remove=remove)
            if image_meta.get("location"):
                doc = self.client.add_location(context, image_id,
                                               image_meta["location"])
            if data is not None:
                self.client.upload(context, image_id, data)
                doc = self.client.get_image(context, image_id)
        except glance_client.HTTPError as exc:
            raise _translate(image_id, exc)
        return convert.from_glance(doc)

    def delete(self, context, image_id):
        try:
            self.client.delete_image(context, image_id)
        except glance_client.HTTPError as exc:
            if exc.status == 404:
                raise exception.ImageNotFound(image_id=image_id)
            if exc.status == 403:
                raise exception.ImageNotAuthorized(image_id=image_id)
            if exc.status == 409:
                raise exception.ImageDeleteConflict(reason=exc.text)
            raise
        return True

    def download(self, context, image_id, data=None, dst_path=None,
                 trusted_certs=None):
        try:
            chunks = self.client.download(context, image_id)
        except glance_client.HTTPError as exc:
            raise _translate(image_id, exc)
        if chunks is None:
            raise exception.ImageUnacceptable(
                image_id=image_id, reason="Image has no associated data")
        if data is None and dst_path is None:
            return chunks
        close = False
        if data is None:
            data = open(dst_path, "wb")
            close = True
        try:
            for chunk in chunks:
                data.write(chunk)
        finally:
            if close:
                data.flush()
                import os
                os.fsync(data.fileno())
                data.close()
        return None
