"""The versioned-object base every keel object derives from.

Primitives use Nova's serial namespace (``nova_object.*``) and project
namespace (``nova``) so that a keel service and an upstream Nova service can
exchange objects on the same RPC bus.

Remotable methods are routed by oslo.versionedobjects: when
``KeelObject.indirection_api`` is set (a compute host sets it to the conductor
RPC client) ``@remotable``/``@remotable_classmethod`` calls become
``object_action`` / ``object_class_action_versions`` RPC calls, so the host
never touches a database; ``disable_db_access()`` makes any local attempt
raise DBNotAllowed.
"""
import contextlib
import copy
import datetime
import functools
import ipaddress
import traceback
import uuid

import netaddr

from oslo_utils import versionutils
from oslo_versionedobjects import base as ovoo_base
from oslo_versionedobjects import exception as ovoo_exc

from keel.objects import db_helpers
from keel.objects import fields as obj_fields
from keel.objects import primitives

# Compute hosts call this at start-up: afterwards an object method that
# would touch a database locally raises DBNotAllowed (as Nova's
# DISABLE_DB_ACCESS); remotable methods still work through the conductor.
disable_db_access = db_helpers.disable_db_access
enable_db_access = db_helpers.enable_db_access

# Re-exported so object modules only import keel.objects.base.
remotable = ovoo_base.remotable
remotable_classmethod = ovoo_base.remotable_classmethod
obj_make_list = ovoo_base.obj_make_list


class KeelObjectRegistry(ovoo_base.VersionedObjectRegistry):
    """Registry that publishes the newest class of each object name as
    ``keel.objects.<Name>``."""

    def _register_class(self, cls):
        super()._register_class(cls)
        primitives.install_properties(cls)

    def registration_hook(self, cls, index):
        # Imported late: keel.objects imports this module.
        from keel import objects

        version = versionutils.convert_version_to_tuple(cls.VERSION)
        current = getattr(objects, cls.obj_name(), None)
        if current is None:
            setattr(objects, cls.obj_name(), cls)
            return
        cur_version = versionutils.convert_version_to_tuple(current.VERSION)
        if version >= cur_version:
            setattr(objects, cls.obj_name(), cls)


# oslo's ObjectListBase.__init__ (see KeelObject._obj_from_primitive).
_LIST_INIT = ovoo_base.ObjectListBase.__init__

# The primitive's keys (serial namespace "nova_object").
_NAME_KEY = "nova_object.name"
_NS_KEY = "nova_object.namespace"
_VERSION_KEY = "nova_object.version"
_DATA_KEY = "nova_object.data"
_CHANGES_KEY = "nova_object.changes"


class KeelObject(ovoo_base.VersionedObject):
    """Base class for every keel object (Nova's NovaObject)."""

    OBJ_SERIAL_NAMESPACE = "nova_object"
    OBJ_PROJECT_NAMESPACE = "nova"

    # Set on compute hosts to the conductor RPC client; see module docstring.
    indirection_api = None

    # oslo's obj_attr_is_set rebuilds the list of field names and scans it
    # on every call, and obj_what_changed calls it once per field: with an
    # Instance (~75 fields) every what-changed check -- made by each save,
    # serialisation and change reset -- cost thousands of comparisons. Same
    # answers here from the fields dict, in constant time per field.
    def obj_attr_is_set(self, attrname):
        if attrname not in self.fields and \
                attrname not in self.obj_extra_fields:
            raise AttributeError(
                "%s object has no attribute '%s'" % (self.obj_name(),
                                                     attrname))
        return hasattr(self, "_obj_" + attrname)

    def obj_what_changed(self):
        # Only fields that can hold an object are looked into (the plan).
        return primitives.what_changed(self)

    @classmethod
    def obj_class_from_name(cls, objname, objver):
        # oslo's asks the registry twice (each time making a registry
        # object: ~2.5 us) for every object of every message; an exact
        # version match -- what our own services send -- is found with
        # one look. Anything else goes oslo's way (compatible versions,
        # errors).
        # The registry's class table read where obj_classes() reads it,
        # without making a registry object.
        registry = ovoo_base.VersionedObjectRegistry._registry
        table = registry._obj_classes if registry is not None else \
            ovoo_base.VersionedObjectRegistry.obj_classes()
        classes = table.get(objname)
        if classes:
            for objclass in classes:
                if objclass.VERSION == objver:
                    return objclass
        return super().obj_class_from_name(objname, objver)

    @classmethod
    def obj_from_primitive(cls, primitive, context=None):
        # oslo's, reading the three keys directly: it builds each key with
        # two classmethod calls and an f-string, for every object (and
        # nested object) of every message.
        if cls.OBJ_SERIAL_NAMESPACE != KeelObject.OBJ_SERIAL_NAMESPACE:
            return super().obj_from_primitive(primitive, context)
        objns = primitive[_NS_KEY]
        objname = primitive[_NAME_KEY]
        objver = primitive[_VERSION_KEY]
        if objns != cls.OBJ_PROJECT_NAMESPACE:
            raise ovoo_exc.UnsupportedObjectError(
                objtype="%s.%s" % (objns, objname))
        objclass = cls.obj_class_from_name(objname, objver)
        return objclass._obj_from_primitive(context, objver, primitive)

    def obj_to_primitive(self, target_version=None, version_manifest=None):
        """Backport with a version manifest even when none is given.

        Like Nova, keel keeps no per-parent child version tables
        (obj_relationships); nested objects stay at the versions of our own
        object tree unless the caller's manifest says otherwise.

        At our own version (every RPC message but a backport) the
        primitive is built from the class' plan (keel/objects/primitives.py):
        the same dict as oslo's, without a generic call per plain field.
        """
        if ((target_version is None or target_version == self.VERSION)
                and not version_manifest):
            obj = {_NAME_KEY: self.obj_name(),
                   _NS_KEY: self.OBJ_PROJECT_NAMESPACE,
                   _VERSION_KEY: self.VERSION}
            obj[_DATA_KEY] = data = primitives.fields_to_primitive(self)
            changed = self.obj_what_changed()
            if changed:
                changes = [name for name in changed if name in data]
                if changes:
                    obj[_CHANGES_KEY] = changes
            return obj
        if (target_version is not None and target_version != self.VERSION
                and version_manifest is None):
            version_manifest = ovoo_base.obj_tree_get_versions(
                self.obj_name())
        return super().obj_to_primitive(target_version=target_version,
                                        version_manifest=version_manifest)

    @classmethod
    def _obj_from_primitive(cls, context, objver, primitive):
        # oslo's, with the plain fields set without the setter's coerce
        # (an identity for them; see keel/objects/primitives.py).
        data = primitive[_DATA_KEY]
        if cls.__init__ is _LIST_INIT and "objects" in data:
            # The list's __init__ would only set objects to a coerced []
            # (through the setter) for the primitive's to replace.
            self = cls.__new__(cls)
            self._changed_fields = set()
        else:
            self = cls()
        self._context = context
        self.VERSION = objver
        primitives.fields_from_primitive(self, data)
        fields = self.fields
        self._changed_fields = {
            x for x in primitive.get(_CHANGES_KEY, ()) if x in fields}
        return self

    @contextlib.contextmanager
    def obj_alternate_context(self, context):
        original = self._context
        self._context = context
        try:
            yield
        finally:
            self._context = original

    @contextlib.contextmanager
    def obj_as_admin(self):
        """Run the enclosed block with an elevated copy of our context."""
        if self._context is None:
            raise ovoo_exc.OrphanedObjectError(method="obj_as_admin",
                                               objtype=self.obj_name())
        original = self._context
        self._context = original.elevated()
        try:
            yield
        finally:
            self._context = original

    def obj_set_defaults_if_unset(self, *attrs):
        for attr in attrs:
            if not self.obj_attr_is_set(attr):
                self.obj_set_defaults(attr)


# Nova's name for the same class, for code written against Nova.
NovaObject = KeelObject


class KeelObjectDictCompat(ovoo_base.VersionedObjectDictCompat):
    """Dict-style access (obj['field']) for the objects that had it in Nova."""

    def __iter__(self):
        for name in self.obj_fields:
            if self.obj_attr_is_set(name) or name in self.obj_extra_fields:
                yield name

    def keys(self):
        return list(self)


NovaObjectDictCompat = KeelObjectDictCompat


class KeelTimestampObject(object):
    """Mixin: created_at / updated_at, as Nova's NovaTimestampObject."""

    fields = {
        "created_at": obj_fields.DateTimeField(nullable=True),
        "updated_at": obj_fields.DateTimeField(nullable=True),
    }


class KeelPersistentObject(object):
    """Mixin: timestamps plus Nova's soft-delete fields."""

    fields = {
        "created_at": obj_fields.DateTimeField(nullable=True),
        "updated_at": obj_fields.DateTimeField(nullable=True),
        "deleted_at": obj_fields.DateTimeField(nullable=True),
        "deleted": obj_fields.BooleanField(default=False),
    }


NovaTimestampObject = KeelTimestampObject
NovaPersistentObject = KeelPersistentObject


class ObjectListBase(ovoo_base.ObjectListBase):
    """Mixin for list objects: ``class FooList(ObjectListBase, KeelObject)``.

    Child versions come from the object tree (oslo's manifest), as in Nova,
    which no longer keeps per-list child_versions tables.
    """


class KeelObjectSerializer(ovoo_base.VersionedObjectSerializer):
    """RPC serializer: objects <-> nova_object primitives.

    An object newer than we know is sent back through the indirection API
    (``object_backport_versions``, with our whole object tree as the version
    manifest) and the conductor returns it at versions we understand.
    """

    OBJ_BASE_CLASS = KeelObject


NovaObjectSerializer = KeelObjectSerializer


def obj_to_primitive(obj):
    """Turn an object (or containers of them) into plain Python values."""
    if isinstance(obj, ObjectListBase):
        return [obj_to_primitive(x) for x in obj]
    if isinstance(obj, KeelObject):
        result = {}
        for key in obj.obj_fields:
            if obj.obj_attr_is_set(key) or key in obj.obj_extra_fields:
                result[key] = obj_to_primitive(getattr(obj, key))
        return result
    if isinstance(obj, (set, list, tuple)):
        return [obj_to_primitive(x) for x in obj]
    if isinstance(obj, dict):
        return {k: obj_to_primitive(v) for k, v in obj.items()}
    if isinstance(obj, datetime.datetime):
        return obj
    return obj


# Values that cannot change in place: a reference is a faithful snapshot.
_IMMUTABLE = (str, int, float, bool, type(None), datetime.datetime,
              datetime.date, datetime.time, datetime.timedelta, bytes,
              ipaddress.IPv4Address, ipaddress.IPv6Address, uuid.UUID,
              netaddr.IPAddress)
# A snapshot entry meaning "always report this field": it holds objects.
_ALWAYS = object()


def _plain_copy(value):
    """An independent copy of a field value made of plain data, or _ALWAYS
    when it holds versioned objects (never equal to a copy: an object has
    no __eq__, so the old deep-copy comparison reported them every time,
    and the caller relies on getting them back)."""
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if isinstance(value, ovoo_base.VersionedObject):
        return _ALWAYS
    # Dict/list/set fields hold oslo's Coerced* subclasses, which keep a
    # reference to their object: a deepcopy of one copies the whole object.
    if isinstance(value, dict):
        if all(type(v) in _IMMUTABLE for v in value.values()):
            return dict(value)
    elif isinstance(value, (list, tuple)):
        if all(type(v) in _IMMUTABLE for v in value):
            return list(value) if isinstance(value, list) else tuple(value)
    elif isinstance(value, (set, frozenset)):
        if all(type(v) in _IMMUTABLE for v in value):
            return set(value)
    if _holds_object(value):
        return _ALWAYS
    return copy.deepcopy(value)


def _holds_object(value, depth=0):
    if isinstance(value, ovoo_base.VersionedObject):
        return True
    if depth > 8:
        return True
    if isinstance(value, dict):
        return any(_holds_object(v, depth + 1) for v in value.values())
    if isinstance(value, (list, set, tuple, frozenset)):
        return any(_holds_object(v, depth + 1) for v in value)
    return False


def _field_attrs(obj):
    """(name, "_obj_<name>") of ``obj``'s fields in ``obj.fields`` order,
    from the class' plan (made once) when the object uses its class'
    fields; read from ``obj.__dict__`` below instead of getattr, which
    raised (and caught) an AttributeError per unset field: an Instance
    leaves a dozen or more unset on every save."""
    plan = primitives.plan_for(type(obj))
    if plan.fields is obj.fields:
        return plan.attrs
    return tuple((name, "_obj_" + name) for name in obj.fields)


def snapshot_fields(obj):
    """What fields_changed_since needs to tell what a method changed: the
    set fields' values (copies of containers, references otherwise) --
    far cheaper than obj_clone, which deep-copies every nested object."""
    values = obj.__dict__
    snap = {}
    for name, attr in _field_attrs(obj):
        if attr in values:
            value = values[attr]
            snap[name] = value if type(value) in _IMMUTABLE \
                else _plain_copy(value)
    return snap


def fields_changed_since(obj, snap):
    """Names of the set fields of ``obj`` that differ from ``snap`` (or
    were unset then), by the same test as comparing with a deep copy."""
    values = obj.__dict__
    changed = []
    for name, attr in _field_attrs(obj):
        if attr not in values:
            continue
        value = values[attr]
        old = snap.get(name, _ALWAYS)
        if old is value and type(value) in _IMMUTABLE:
            continue
        if old is _ALWAYS or old != value or _holds_object(value):
            changed.append(name)
    return changed


def obj_equal_prims(obj_1, obj_2, ignore=None):
    """Compare two objects' primitives, ignoring the given field names."""

    def _strip(prim, keys):
        if isinstance(prim, dict):
            for k in keys:
                prim.pop(k, None)
            for v in prim.values():
                _strip(v, keys)
        if isinstance(prim, list):
            for v in prim:
                _strip(v, keys)
        return prim

    keys = ["nova_object.changes"] + list(ignore or [])
    return (_strip(obj_1.obj_to_primitive(), keys) ==
            _strip(obj_2.obj_to_primitive(), keys))


def serialize_args(fn):
    """Make exceptions, tracebacks and datetimes RPC-safe before a
    remotable (class)method sends them: exc_val -> its message, exc_tb ->
    the formatted traceback, datetimes -> ISO strings (as Nova)."""

    def _plain(key, value):
        if key == "exc_val" and value is not None and \
                not isinstance(value, str):
            fmt = getattr(value, "format_message", None)
            return fmt() if fmt else str(value)
        if key == "exc_tb" and value is not None and \
                not isinstance(value, str):
            return "".join(traceback.format_tb(value))
        if isinstance(value, datetime.datetime):
            return value.isoformat()
        return value

    def wrapper(obj, *args, **kwargs):
        args = [_plain(None, a) for a in args]
        kwargs = {k: _plain(k, v) for k, v in kwargs.items()}
        if callable(fn):
            return fn(obj, *args, **kwargs)
        return fn.__get__(None, obj)(*args, **kwargs)

    wrapper.original_fn = fn
    if callable(fn):
        return functools.wraps(fn)(wrapper)
    return classmethod(wrapper)


def drop_newer_fields(primitive, target_version, added_in):
    """For obj_make_compatible: remove fields newer than the target.

    ``added_in`` maps a version tuple to the fields that version added.
    """
    target = versionutils.convert_version_to_tuple(target_version)
    for version, names in added_in.items():
        if target < version:
            for name in names:
                primitive.pop(name, None)


def get_soft_deleted_value(deleted):
    """Nova stores deleted as the row id; objects expose a boolean."""
    return bool(deleted)
