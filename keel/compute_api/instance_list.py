"""Listing instances across cells, merged in the requested order.

Every cell is queried in parallel with the same filters, sort and limit;
servers still building (BuildRequests in the API database) form one more
sorted stream; the streams are merged with ``heapq`` by the sort values,
with the instance uuid as the last, globally unique, key. A marker is found
through its instance mapping (or its BuildRequest) and its sort values are
the lower bound in every cell, so paging is exact across cells.

A cell that fails or does not answer is reported back; the caller asks for
minimal records of its instances (``cell_down_support``, API 2.69+) or
skips it. Nothing about one cell ever fails the whole list.
"""
import heapq
import itertools
import re
import types

from oslo_serialization import jsonutils
from oslo_utils import timeutils

from keel import context as keel_context
from keel.db import cells as db_cells
from keel.db.cell import models
from keel import exception
from keel import objects
from keel.objects import db_helpers as h

# Filters the cell query itself applies (keel.objects.instance_db).
_DB_FILTERS = {"deleted", "soft_deleted", "hidden", "changes-since", "changes-before",
               "tags", "tags-any", "uuid", "project_id", "user_id", "host",
               "vm_state", "task_state", "image_ref", "instance_type_id",
               "locked", "display_name", "display_description"}
_DEFAULT_KEYS = ("created_at", "uuid")


def process_sort_params(sort_keys, sort_dirs):
    """Nova's rules: directions default to the first given one (else
    ``desc``), too many directions is an error, and ``created_at`` and
    ``uuid`` end every sort so that the order is total."""
    keys = list(sort_keys or ["created_at"])
    for direction in sort_dirs or ():
        if direction not in ("asc", "desc"):
            raise exception.InvalidInput(
                reason="Unknown sort direction, must be 'desc' or 'asc'")
    default_dir = sort_dirs[0] if sort_dirs else "desc"
    dirs = list(sort_dirs or [default_dir] * len(keys))
    if len(dirs) > len(keys):
        raise exception.InvalidInput(
            reason="Sort direction size exceeds sort key size")
    dirs += [default_dir] * (len(keys) - len(dirs))
    for key in _DEFAULT_KEYS:
        if key not in keys:
            keys.append(key)
            dirs.append(default_dir)
    return keys, dirs


def _value(inst, key):
    if key not in inst.fields or not inst.obj_attr_is_set(key):
        return None
    value = getattr(inst, key)
    if hasattr(value, "tzinfo") and value.tzinfo is not None:
        value = timeutils.normalize_time(value)
    return value


class _SortKey:
    """Orders instances as the databases do: NULL lowest, per-key
    direction."""

    __slots__ = ("values", "dirs")

    def __init__(self, values, dirs):
        self.values = values
        self.dirs = dirs

    def __lt__(self, other):
        for a, b, direction in zip(self.values, other.values, self.dirs):
            if a == b:
                continue
            if a is None:
                less = True
            elif b is None:
                less = False
            else:
                try:
                    less = a < b
                except TypeError:
                    less = str(a) < str(b)
            return less if direction == "asc" else not less
        return False

    def __eq__(self, other):
        return self.values == other.values


def sort_key_of(inst, keys, dirs):
    return _SortKey([_value(inst, k) for k in keys], dirs)


# --- filters applied in Python -----------------------------------------

def _ip_version(item):
    return item.get("version") or (6 if ":" in item.get("address", "")
                                   else 4)


def _addresses(inst, version):
    """Fixed and floating addresses of ``version`` in the info cache."""
    cache = inst.info_cache if inst.obj_attr_is_set("info_cache") else None
    network_info = getattr(cache, "network_info", None) or []
    if isinstance(network_info, str):
        network_info = jsonutils.loads(network_info)
    out = []
    for vif in network_info:
        for subnet in (vif.get("network") or {}).get("subnets") or ():
            for ip in subnet.get("ips") or ():
                for item in [ip] + list(ip.get("floating_ips") or ()):
                    if item.get("address") and \
                            _ip_version(item) == version:
                        out.append(item["address"])
    return out


def _tags(inst):
    if not inst.obj_attr_is_set("tags") or inst.tags is None:
        return set()
    return {t.tag for t in inst.tags}


def _search(pattern, value):
    if value is None:
        return False
    try:
        return re.search(str(pattern), str(value)) is not None
    except re.error:
        return str(pattern) in str(value)


# Filters Nova matches as regular expressions (all but its exact ones).
REGEX_FILTERS = {"access_ip_v4", "access_ip_v6", "auto_disk_config",
                 "availability_zone", "config_drive", "kernel_id",
                 "key_name", "launched_at", "terminated_at", "created_at",
                 "locked_by", "node", "power_state", "progress",
                 "ramdisk_id", "reservation_id", "root_device_name",
                 "hostname", "launch_index", "display_name",
                 "display_description"}


def python_match(inst, filters):
    """Whether ``inst`` passes the filters the cell query does not apply
    (and, for BuildRequests, all of them)."""
    for key, want in filters.items():
        if key in ("deleted", "soft_deleted", "changes-since",
                   "changes-before"):
            continue  # build requests are never deleted; handled by SQL
        if key == "ip":
            if not any(_search(want, a) for a in _addresses(inst, 4)):
                return False
        elif key == "ip6":
            if not any(_search(want, a) for a in _addresses(inst, 6)):
                return False
        elif key == "tags":
            if not set(want) <= _tags(inst):
                return False
        elif key == "tags-any":
            if not set(want) & _tags(inst):
                return False
        elif key == "not-tags":
            if set(want) <= _tags(inst):
                return False
        elif key == "not-tags-any":
            if set(want) & _tags(inst):
                return False
        elif key == "hidden":
            if bool(_value(inst, "hidden")) != bool(want):
                return False
        elif key in REGEX_FILTERS:
            if not _search(want, _value(inst, key)):
                return False
        else:
            have = _value(inst, key)
            if isinstance(want, (list, tuple, set)):
                if have not in want:
                    return False
            elif have != want:
                return False
    return True


def split_filters(filters):
    db, py = {}, {}
    for key, value in filters.items():
        (db if key in _DB_FILTERS else py)[key] = value
    return db, py


# --- one cell ------------------------------------------------------------

def _cell_page(cctxt, db_filters, py_filters, keys, dirs, limit, bound,
               expected_attrs):
    """The cell's instances after ``bound`` in sort order, filtered."""
    cls = objects.InstanceList
    with h.cell_reader(cctxt) as s:
        stmt = cls._select(cctxt, db_filters, expected_attrs)
        stmt = h.paginate(stmt, models.Instance, keys, dirs,
                          limit=None if py_filters else limit,
                          marker_row=bound)
        rows = s.execute(stmt).scalars().all()
        found = cls._from_rows(cctxt, rows, expected_attrs)
    out = [i for i in found if python_match(i, py_filters)]
    return out[:limit] if limit is not None else out


def _bound_of(inst, keys):
    """A marker row with the marker's sort values (naive UTC), used as
    the lower bound in every cell (``uuid``, unique, ends the keys)."""
    return types.SimpleNamespace(**{k: _value(inst, k) for k in keys})


# --- markers ------------------------------------------------------------

def find_marker(ctx, marker):
    """``(instance, cell_uuid | None)`` of the marker; ``None`` cell means
    a BuildRequest. MarkerNotFound when it is nowhere."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(ctx, marker)
    except exception.InstanceMappingNotFound:
        mapping = None
    if mapping is not None and mapping.cell_mapping is not None:
        cell = mapping.cell_mapping
        with keel_context.target_cell(ctx, cell) as cctxt:
            cctxt.read_deleted = "yes"
            try:
                inst = objects.Instance.get_by_uuid(cctxt, marker,
                                                    expected_attrs=[])
            except exception.InstanceNotFound:
                raise exception.MarkerNotFound(marker=marker)
            except Exception:
                return None, cell.uuid  # the marker's cell is down
        return inst, cell.uuid
    try:
        req = objects.BuildRequest.get_by_instance_uuid(ctx, marker)
    except exception.BuildRequestNotFound:
        raise exception.MarkerNotFound(marker=marker)
    return req.instance, None


# --- build requests -----------------------------------------------------

def _build_request_stream(ctx, filters, keys, dirs, bound_key, limit):
    if filters.get("deleted") or "changes-before" in filters:
        return []
    since = filters.get("changes-since")
    out = []
    for req in objects.BuildRequestList.get_all(ctx):
        inst = req.instance
        if not inst.obj_attr_is_set("tags"):
            inst.tags = req.tags
        if since is not None and (_value(inst, "updated_at") or
                                  _value(inst, "created_at")) < \
                timeutils.normalize_time(since):
            continue
        if not python_match(inst, filters):
            continue
        key = sort_key_of(inst, keys, dirs)
        if bound_key is not None and not bound_key < key:
            continue
        out.append((key, inst))
    out.sort(key=lambda pair: pair[0])
    if limit is not None:
        out = out[:limit]
    return [inst for _key, inst in out]


# --- the list -------------------------------------------------------------

class ListResult:
    """The page, and the cells that did not answer."""

    def __init__(self, instances, down_cells):
        self.instances = instances
        self.down_cells = down_cells


def minimal_records(ctx, down_cells, project_id, after=None):
    """Minimal Instances (uuid, project, user, created_at) for the live
    mappings of the down cells, in mapping order, after ``after``."""
    out = []
    for cell in down_cells:
        for im in objects.InstanceMappingList.get_by_cell_id(ctx, cell.id):
            if im.queued_for_delete:
                continue
            if project_id is not None and im.project_id != project_id:
                continue
            out.append(objects.Instance(
                ctx, uuid=im.instance_uuid, project_id=im.project_id,
                user_id=im.user_id, created_at=im.created_at))
    if after is not None:
        uuids = [i.uuid for i in out]
        out = out[uuids.index(after) + 1:] if after in uuids else out
    return out


def get_instances_sorted(ctx, filters, limit, marker, expected_attrs,
                         sort_keys, sort_dirs, cell_down_support=False,
                         timeout=None):
    keys, dirs = process_sort_params(sort_keys, sort_dirs)
    expected = list(expected_attrs or ())
    # Python-side filters on tags/ips need the data loaded.
    for needed, attr in (("ip", "info_cache"), ("ip6", "info_cache"),
                         ("not-tags", "tags"), ("not-tags-any", "tags")):
        if needed in filters and attr not in expected:
            expected.append(attr)
    db_filters, py_filters = split_filters(filters)
    cell_mappings = objects.CellMappingList.get_all(ctx)

    bound, bound_key, down_marker = None, None, None
    if marker is not None:
        marker_inst, marker_cell = find_marker(ctx, marker)
        if marker_inst is None:
            down_marker = marker
        else:
            bound = _bound_of(marker_inst, keys)
            bound_key = sort_key_of(marker_inst, keys, dirs)

    # Minimal records of down cells lead the list (as Nova prefixes them).
    results = db_cells.scatter_gather_cells(
        ctx, cell_mappings, timeout, _cell_page, db_filters, py_filters,
        keys, dirs, limit, bound, expected)
    down = [c for c in cell_mappings
            if db_cells.is_cell_failure_sentinel(results.get(c.uuid))]
    streams = [r for r in results.values()
               if not db_cells.is_cell_failure_sentinel(r)]
    # An instance already in its cell wins over a BuildRequest not yet
    # deleted (the window at the end of a boot).
    in_cells = {i.uuid for stream in streams for i in stream}
    streams.append([i for i in _build_request_stream(
        ctx, filters, keys, dirs, bound_key, limit)
        if i.uuid not in in_cells])
    merged = list(itertools.islice(
        heapq.merge(*streams, key=lambda i: sort_key_of(i, keys, dirs)),
        limit))
    lead = []
    if cell_down_support and down and (marker is None or down_marker):
        lead = minimal_records(ctx, down, filters.get("project_id"),
                               after=down_marker)
    page = lead + merged
    if limit is not None:
        page = page[:limit]
    return ListResult(page, down)


def instance_cell(ctx, instance_uuid):
    """The CellMapping of an instance, None while it is a BuildRequest;
    InstanceNotFound when it is neither."""
    try:
        mapping = objects.InstanceMapping.get_by_instance_uuid(
            ctx, instance_uuid)
    except exception.InstanceMappingNotFound:
        raise exception.InstanceNotFound(instance_id=instance_uuid)
    return mapping.cell_mapping

