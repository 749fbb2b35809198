"""``keel manage image register|list|show|delete``: the local image
catalogue (``[image_catalogue]/path``) or, when ``[glance]`` is configured,
Glance, through the same image API the services use.

Exit codes, as the other manage commands: 0 done, 1 not found or refused,
2 invalid arguments (argparse's own usage errors are 2 as well).
"""
import prettytable

from keel.cmd import manage
from keel.conf import CONF
from keel import context
from keel import exception

_LIST_COLUMNS = ("ID", "Name", "Status", "Disk Format", "Container Format",
                 "Size", "Visibility")


def _api():
    from keel.clients import glance as glance_client
    from keel.image import api as image_api
    if not image_api.use_local(CONF) and not glance_client.configured(CONF):
        print("ERROR: no image service: set [image_catalogue]/path (the "
              "all-in-one writes it into <state-dir>/all-in-one.conf) or "
              "configure [glance].")
        return None
    image_api.reset()
    return image_api.get_api()


def _properties(pairs):
    props = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError("Invalid --property %r: expected KEY=VALUE"
                             % pair)
        props[key.strip()] = value
    return props


def _show(image):
    table = prettytable.PrettyTable(["Property", "Value"])
    table.align = "l"
    rows = {k: v for k, v in image.items() if k != "properties"}
    for key, value in sorted(rows.items()):
        table.add_row([key, "" if value is None else value])
    for key, value in sorted((image.get("properties") or {}).items()):
        table.add_row(["properties." + key, value])
    print(table)


def _find(api, ctxt, ref):
    """An image by id, else by unique name."""
    try:
        return api.get(ctxt, ref)
    except exception.ImageNotFound:
        pass
    named = api.get_all(ctxt, filters={"name": ref})
    if len(named) == 1:
        return named[0]
    if named:
        print("ERROR: %d images are named %s; use the ID." % (len(named),
                                                               ref))
        return False
    print("ERROR: Image %s could not be found." % ref)
    return None


@manage.category("image")
class ImageCommands:
    """Register, list, show and delete images (local catalogue or Glance)."""

    @manage.args("name", metavar="NAME", help="Name of the image")
    @manage.args("--file", dest="file", metavar="PATH",
                 help="Image data to copy into the catalogue")
    @manage.args("--location", metavar="URL",
                 help="Where the virt driver fetches the image from "
                      "(instead of --file)")
    @manage.args("--size", type=int, metavar="BYTES",
                 help="Size of the image at --location")
    @manage.args("--disk-format", dest="disk_format", default="qcow2",
                 help="Disk format (default qcow2)")
    @manage.args("--container-format", dest="container_format",
                 default="bare", help="Container format (default bare)")
    @manage.args("--min-disk", dest="min_disk", type=int, default=0,
                 help="Minimum root disk in GiB")
    @manage.args("--min-ram", dest="min_ram", type=int, default=0,
                 help="Minimum RAM in MiB")
    @manage.args("--property", dest="property", action="append",
                 metavar="KEY=VALUE", help="Image property (repeatable)")
    @manage.args("--visibility", default="public",
                 choices=("public", "private", "shared", "community"),
                 help="Visibility (default public)")
    @manage.args("--id", dest="id", metavar="UUID",
                 help="Image id (default: a new UUID)")
    def register(self, name, file=None, location=None, size=None,
                 disk_format="qcow2", container_format="bare", min_disk=0,
                 min_ram=0, property=None, visibility="public", id=None):
        """Register an image from a file or a location."""
        if bool(file) == bool(location):
            print("ERROR: give exactly one of --file and --location.")
            return 2
        if min_disk < 0 or min_ram < 0:
            print("ERROR: --min-disk and --min-ram must be >= 0.")
            return 2
        try:
            props = _properties(property)
        except ValueError as exc:
            print("ERROR: %s" % exc)
            return 2
        meta = {"name": name, "disk_format": disk_format,
                "container_format": container_format,
                "min_disk": min_disk, "min_ram": min_ram,
                "visibility": visibility, "properties": props}
        if id:
            meta["id"] = id
        if location:
            meta["location"] = location
            if size is not None:
                meta["size"] = size
        api = _api()
        if api is None:
            return 1
        ctxt = context.get_admin_context()
        try:
            if file:
                with open(file, "rb") as data:
                    image = api.create(ctxt, meta, data=data)
            else:
                image = api.create(ctxt, meta)
        except OSError as exc:
            print("ERROR: cannot read %s: %s" % (file, exc.strerror))
            return 2
        except (exception.ImageBadRequest, exception.Invalid) as exc:
            print("ERROR: %s" % exc.format_message())
            return 2
        _show(image)
        return 0

    def list(self):
        """List the images."""
        api = _api()
        if api is None:
            return 1
        table = prettytable.PrettyTable(_LIST_COLUMNS)
        table.align = "l"
        for image in sorted(api.get_all(context.get_admin_context()),
                            key=lambda i: (i.get("name") or "", i["id"])):
            table.add_row([image["id"], image.get("name") or "",
                           image.get("status"), image.get("disk_format"),
                           image.get("container_format"),
                           image.get("size") or 0, image.get("visibility")])
        print(table)
        return 0

    @manage.args("image", metavar="IMAGE", help="Image ID or name")
    def show(self, image):
        """Show one image with its properties."""
        api = _api()
        if api is None:
            return 1
        found = _find(api, context.get_admin_context(), image)
        if not found:
            return 1
        _show(found)
        return 0

    @manage.args("image", metavar="IMAGE", help="Image ID or name")
    def delete(self, image):
        """Delete an image (and its data)."""
        api = _api()
        if api is None:
            return 1
        ctxt = context.get_admin_context()
        found = _find(api, ctxt, image)
        if not found:
            return 1
        try:
            api.delete(ctxt, found["id"])
        except exception.ImageNotFound:
            print("ERROR: Image %s could not be found." % image)
            return 1
        except (exception.ImageNotAuthorized,
                exception.ImageDeleteConflict) as exc:
            print("ERROR: %s" % exc.format_message())
            return 1
        print("Deleted image %s." % found["id"])
        return 0
