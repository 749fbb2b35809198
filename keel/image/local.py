"""The local image catalogue: Nova's image API over a directory.

Used by the all-in-one when no Glance is configured. Each image is one
Glance-v2-shaped JSON document ``<id>.json`` (so ``keel.image.convert``
serves both backends), its data optionally in ``<id>.data``.

Several processes share the directory (the all-in-one and ``keel manage
image``): every file is written to a temporary name and renamed into place
(``os.replace`` is atomic), so a reader sees the old or the new document,
never half of one; read-modify-write changes take an exclusive ``flock`` on
``.lock`` so two writers do not lose each other's update.
"""
import contextlib
import fcntl
import hashlib
import json
import os
import tempfile

from oslo_utils import timeutils
from oslo_utils import uuidutils

from keel import exception
from keel.image import convert
from keel.image import filters as filters_mod
from keel.image import json_patch
from keel.image import locations
from keel.image import rules

CHUNK = 64 * 1024
def _now():
    return convert.isotime(timeutils.utcnow())


def _is_admin(context):
    return context is None or getattr(context, "is_admin", False)


def _project(context):
    return getattr(context, "project_id", None) if context else None


class LocalImageAPI:
    """Nova's ``nova.image.glance.API`` methods over a directory."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        os.makedirs(self.path, exist_ok=True)

    # -- files -------------------------------------------------------------
    def _doc_path(self, image_id):
        return os.path.join(self.path, "%s.json" % image_id)

    def data_path(self, image_id):
        return os.path.join(self.path, "%s.data" % image_id)

    @contextlib.contextmanager
    def _locked(self):
        with open(os.path.join(self.path, ".lock"), "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _write_atomic(self, final, write):
        fd, tmp = tempfile.mkstemp(dir=self.path, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                result = write(fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return result

    def _save(self, doc):
        body = json.dumps(doc, sort_keys=True, indent=1).encode()
        self._write_atomic(self._doc_path(doc["id"]),
                           lambda fh: fh.write(body))

    def _load(self, image_id):
        # Every id is a UUID (create insists): anything else names no
        # image, and never reaches the file system.
        if not isinstance(image_id, str) or \
                not uuidutils.is_uuid_like(image_id):
            return None
        try:
            with open(self._doc_path(image_id), "rb") as fh:
                return json.load(fh)
        except (FileNotFoundError, ValueError):
            return None

    def _all_docs(self):
        docs = []
        for name in os.listdir(self.path):
            if name.endswith(".json") and not name.startswith("."):
                doc = self._load(name[:-5])
                if doc is not None:
                    docs.append(doc)
        return docs

    # -- access (as Glance's default policy) --------------------------------
    @staticmethod
    def _visible(context, doc):
        if _is_admin(context):
            return True
        if doc.get("visibility") in ("public", "community"):
            return True
        return doc.get("owner") is not None and doc.get("owner") == \
            _project(context)

    @staticmethod
    def _listed(context, doc):
        # Glance's default list leaves out community images of others.
        if _is_admin(context) or doc.get("visibility") == "public":
            return True
        return doc.get("owner") is not None and doc.get("owner") == \
            _project(context)

    def _get_doc(self, context, image_id):
        doc = self._load(image_id)
        if doc is None or not self._visible(context, doc):
            raise exception.ImageNotFound(image_id=image_id)
        return doc

    def _check_owner(self, context, doc):
        if not _is_admin(context) and doc.get("owner") != _project(context):
            raise exception.ImageNotAuthorized(image_id=doc["id"])

    # -- Nova's image API -----------------------------------------------------
    def get(self, context, image_id, include_locations=False,
            show_deleted=True):
        return convert.from_glance(self._get_doc(context, image_id),
                                   include_locations=include_locations)

    def get_all(self, context, **kwargs):
        docs = [d for d in self._all_docs() if self._listed(context, d)]
        images = [convert.from_glance(d) for d in docs]
        return filters_mod.apply(images, kwargs)

    def create(self, context, image_meta, data=None):
        image_meta, data = rules.force_activate(image_meta, data)
        meta = dict(image_meta)
        image_id = meta.pop("id", None) or uuidutils.generate_uuid()
        if not uuidutils.is_uuid_like(image_id):
            raise exception.ImageBadRequest(
                image_id=image_id, response="id must be a UUID")
        location = meta.pop("location", None)
        doc = convert.to_glance(meta)
        rules.validate(image_id, doc)
        now = _now()
        doc.update(id=image_id, status="queued", created_at=now,
                   updated_at=now, size=None, checksum=None,
                   os_hash_algo=None, os_hash_value=None, locations=[],
                   tags=list(doc.get("tags") or []))
        doc.setdefault("name", None)
        doc.setdefault("visibility", "shared")
        doc.setdefault("protected", False)
        doc.setdefault("min_ram", 0)
        doc.setdefault("min_disk", 0)
        doc.setdefault("disk_format", None)
        doc.setdefault("container_format", None)
        if "owner" not in doc:
            doc["owner"] = _project(context)
        if location:
            self._set_location(doc, location, image_meta.get("size"))
        spooled = None
        if data is not None:
            rules.check_formats(doc)
            # Written before taking the lock: a large upload must not hold
            # up every other writer of the catalogue.
            spooled = self._spool(data)
        try:
            with self._locked():
                if self._load(image_id) is not None:
                    raise exception.ImageBadRequest(
                        image_id=image_id,
                        response="Image with identifier %s already exists!"
                                 % image_id)
                if spooled is not None:
                    self._commit_data(doc, spooled)
                    spooled = None
                self._save(doc)
        finally:
            _discard(spooled)
        return convert.from_glance(doc)

    def update(self, context, image_id, image_meta, data=None,
               purge_props=True):
        if data is None:
            return self._update(context, image_id, image_meta, purge_props)
        # Glance's queued -> saving -> active: "saving" claims the upload
        # (a second one is refused) while the data is written unlocked.
        # The formats may come with this very update (Nova's Glance client
        # sets them in the same call as the data), as Glance accepts.
        self._transition(context, image_id, "queued", "saving",
                         incoming=image_meta)
        spooled = None
        try:
            spooled = self._spool(data)
            image = self._update(context, image_id, image_meta,
                                 purge_props, spooled=spooled)
            spooled = None
            return image
        except BaseException:
            with contextlib.suppress(exception.NovaException):
                self._transition(None, image_id, "saving", "queued")
            raise
        finally:
            _discard(spooled)

    def _transition(self, context, image_id, old, new, incoming=None):
        with self._locked():
            doc = self._get_doc(context, image_id)
            self._check_owner(context, doc)
            if doc["status"] != old:
                raise exception.ImageBadRequest(
                    image_id=image_id,
                    response="Image status transition from %s to %s is not "
                             "allowed" % (doc["status"], new))
            if new == "saving":
                formats = {k: (incoming or {}).get(k) or doc.get(k)
                           for k in ("disk_format", "container_format")}
                rules.check_formats(dict(doc, **formats))
            doc["status"] = new
            self._save(doc)

    def _update(self, context, image_id, image_meta, purge_props,
                spooled=None):
        with self._locked():
            doc = self._get_doc(context, image_id)
            self._check_owner(context, doc)
            meta = dict(image_meta)
            meta.pop("id", None)
            location = meta.pop("location", None)
            changes = convert.to_glance(meta)
            rules.validate(image_id, changes)
            if purge_props:
                # As Nova with Glance v2: properties not named are removed.
                for key in list(doc):
                    if key not in convert.BASE_ATTRIBUTES and \
                            key not in changes:
                        del doc[key]
            doc.update(changes)
            if location:
                self._set_location(doc, location, image_meta.get("size"))
            if spooled is not None:
                if doc["status"] != "saving":
                    raise exception.ImageBadRequest(
                        image_id=image_id,
                        response="Image status transition from %s to "
                                 "active is not allowed" % doc["status"])
                self._commit_data(doc, spooled)
            doc["updated_at"] = _now()
            self._save(doc)
        return convert.from_glance(doc)

    def delete(self, context, image_id):
        with self._locked():
            doc = self._get_doc(context, image_id)
            self._check_owner(context, doc)
            if doc.get("protected"):
                raise exception.ImageNotAuthorized(image_id=image_id)
            os.unlink(self._doc_path(image_id))
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.data_path(image_id))
        return True

    def download(self, context, image_id, data=None, dst_path=None,
                 trusted_certs=None):
        doc = self._get_doc(context, image_id)
        src = self.data_path(image_id)
        if os.path.exists(src):
            chunks = _chunks(src)
        else:
            chunks = self._from_location(doc)
        if data is None and dst_path is None:
            return chunks
        close = data is None
        if close:
            data = open(dst_path, "wb")
        try:
            for chunk in chunks:
                data.write(chunk)
        finally:
            if close:
                data.close()
        return None

    @staticmethod
    def _from_location(doc):
        """The data at the image's registered location."""
        for loc in doc.get("locations") or []:
            if locations.readable(loc.get("url")):
                try:
                    return locations.stream(loc["url"])
                except OSError as exc:
                    raise exception.ImageUnacceptable(
                        image_id=doc["id"],
                        reason="location %s: %s" % (loc["url"], exc))
        raise exception.ImageUnacceptable(
            image_id=doc["id"], reason="Image has no associated data")

    # -- Glance-shaped access (the all-in-one's image endpoint) ---------------
    def document(self, context, image_id):
        """The stored Glance v2 document of a visible image."""
        return dict(self._get_doc(context, image_id))

    def documents(self, context):
        """Glance v2 documents of the images Glance would list."""
        return [d for d in self._all_docs() if self._listed(context, d)]

    def patch(self, context, image_id, ops):
        """Glance's JSON patch (add, replace, remove of top-level
        attributes and properties; add of ``/locations/-``)."""
        with self._locked():
            doc = self._get_doc(context, image_id)
            self._check_owner(context, doc)
            for op in ops:
                if op.get("op") == "add" and \
                        op.get("path") == "/locations/-":
                    # Read by the service itself: administrators only.
                    if not _is_admin(context):
                        raise exception.ImageNotAuthorized(image_id=image_id)
                    url = (op.get("value") or {}).get("url")
                    if not url:
                        raise exception.ImageBadRequest(
                            image_id=image_id, response="Invalid location")
                    self._set_location(doc, url)
                else:
                    json_patch.apply(doc, op)
            rules.validate(image_id, doc)
            doc["updated_at"] = _now()
            self._save(doc)
        return dict(doc)

    # -- helpers -------------------------------------------------------------
    @staticmethod
    def _set_location(doc, url, size=None):
        doc["locations"] = [{"url": url, "metadata": {}}]
        doc["direct_url"] = url
        doc["status"] = "active"
        if size is None:
            size = locations.size_of(url)
        if size is not None:
            doc["size"] = int(size)
        doc["disk_format"] = doc.get("disk_format") or \
            rules.DEFAULT_DISK_FORMAT
        doc["container_format"] = doc.get("container_format") or \
            rules.DEFAULT_CONTAINER_FORMAT

    def _spool(self, data):
        """Write the data (bytes, a file object or an iterable of chunks)
        to a temporary file of the catalogue, hashing it on the way."""
        md5, sha = hashlib.md5(usedforsecurity=False), hashlib.sha512()
        fd, tmp = tempfile.mkstemp(dir=self.path, prefix=".tmp-")
        size = 0
        try:
            with os.fdopen(fd, "wb") as fh:
                for chunk in _iter_data(data):
                    md5.update(chunk)
                    sha.update(chunk)
                    fh.write(chunk)
                    size += len(chunk)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            _discard({"path": tmp})
            raise
        return {"path": tmp, "size": size, "checksum": md5.hexdigest(),
                "os_hash_value": sha.hexdigest()}

    def _commit_data(self, doc, spooled):
        """Move spooled data into place and mark the image active, as a
        Glance upload does (called under the lock)."""
        os.replace(spooled["path"], self.data_path(doc["id"]))
        doc.update(size=spooled["size"], checksum=spooled["checksum"],
                   os_hash_algo="sha512",
                   os_hash_value=spooled["os_hash_value"], status="active")


def _discard(spooled):
    if spooled is not None:
        with contextlib.suppress(OSError):
            os.unlink(spooled["path"])


def _iter_data(data):
    if isinstance(data, (bytes, bytearray)):
        yield bytes(data)
    elif hasattr(data, "read"):
        for chunk in iter(lambda: data.read(CHUNK), b""):
            yield chunk
    else:
        for chunk in data:
            yield chunk


def _chunks(path):
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            yield chunk
