"""Per-class plans that make (de)serialising versioned objects cheap.

oslo.versionedobjects turns each field into and out of its primitive through
two or three generic calls (Field.to_primitive -> FieldType.to_primitive,
Field.from_primitive -> FieldType.from_primitive, then the property setter's
Field.coerce), and tests each field with hasattr on a freshly built
"_obj_<name>" string. Every RPC message of every service does this for each
field of each object (an Instance has ~75). Most fields are plain strings,
integers and booleans whose primitive *is* the value, so a plan made once
per class says, per field, whether the value can be copied as it is; every
other field still goes through oslo's own calls, so the primitives (and the
values read back) are exactly oslo's.
"""
import datetime
import re

from oslo_versionedobjects import base as ovoo_base
from oslo_versionedobjects import exception as ovoo_exc
from oslo_versionedobjects import fields as ovoo_fields

# Field types whose coerce returns a value of exactly this Python type
# unchanged (str(s) is s, int(i) is i, ...): for such a value, from_primitive
# followed by the setter's coerce is the identity.
_SAME_IF = {
    ovoo_fields.String.coerce: str,
    ovoo_fields.Integer.coerce: int,
    ovoo_fields.Boolean.coerce: bool,
    ovoo_fields.Float.coerce: float,
}
# UUID's coerce only warns about a malformed value; a canonical one is kept.
_UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                      r"[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
# Kinds of the from-primitive plan.
_SLOW, _PLAIN, _UUID, _ENUM, _DATETIME, _OBJECT, _DICT, _OBJLIST = range(8)
# Kinds of the to-primitive plan.
(_TO_SLOW, _TO_COPY, _TO_DATETIME, _TO_OBJECT, _TO_OBJLIST, _TO_DICT,
 _TO_LIST) = range(7)
_GENERIC_FIELD = (ovoo_fields.Field.to_primitive,
                  ovoo_fields.Field.from_primitive, ovoo_fields.Field.coerce)
# What oslo's isotime writes (whole seconds, "Z"), read without iso8601.
_ISOTIME_RE = re.compile(r"^([0-9]{4})-([0-9]{2})-([0-9]{2})"
                         r"T([0-9]{2}):([0-9]{2}):([0-9]{2})Z\Z")
_UTC = datetime.timezone.utc
# Field types that can never hold a versioned object (for obj_what_changed).
_NEVER_OBJECT = (ovoo_fields.String, ovoo_fields.Integer, ovoo_fields.Boolean,
                 ovoo_fields.Float, ovoo_fields.DateTime, ovoo_fields.UUID,
                 ovoo_fields.NonNegativeInteger,
                 ovoo_fields.NonNegativeFloat, ovoo_fields.IPAddress,
                 ovoo_fields.IPNetwork)

_PLANS = {}


class Plan(object):
    """What obj_to_primitive / _obj_from_primitive / obj_what_changed need
    to know about one class' fields."""

    def __init__(self, cls):
        self.fields = cls.fields
        generic_field = _GENERIC_FIELD
        to_prim, from_prim, maybe_objects = [], [], []
        dict_elems = {}
        for name, field in cls.fields.items():
            ftype = field._type
            plain_field = (type(field).to_primitive, type(field).from_primitive,
                           type(field).coerce) == generic_field
            # to: the value is its own primitive when the type does not
            # override FieldType.to_primitive (None is always None).
            out = _TO_SLOW
            if plain_field and type(ftype).to_primitive is \
                    ovoo_fields.FieldType.to_primitive:
                out = _TO_COPY
            elif plain_field and type(ftype) is ovoo_fields.DateTime:
                out = _TO_DATETIME
            elif plain_field and type(ftype) is ovoo_fields.Object:
                out = _TO_OBJECT
            elif plain_field and _object_element(ftype) is not None:
                out = _TO_OBJLIST
            elif plain_field and _copied_elements(ftype):
                out = _TO_DICT if type(ftype) is ovoo_fields.Dict \
                    else _TO_LIST
            to_prim.append((name, "_obj_" + name, field, out))
            kind, same = _SLOW, None
            if plain_field and type(ftype) is ovoo_fields.DateTime and \
                    ftype.tzinfo_aware:
                kind, same = _DATETIME, str
            elif plain_field and type(ftype) is ovoo_fields.Object and \
                    not ftype._subclasses:
                kind, same = _OBJECT, dict
            elif plain_field and type(ftype) is ovoo_fields.Dict:
                # A dict of plain values (DictOfStringsField & co.):
                # ``same`` is then the elements' exact type.
                elem = _plain_element(ftype._element_type)
                if elem is not None:
                    kind, same = _DICT, dict
                    dict_elems[name] = elem
            elif plain_field and _object_element(ftype) is not None and \
                    not ftype._element_type._type._subclasses and \
                    not field.read_only:
                # A list of one kind of object (ObjectListBase.objects).
                kind, same = _OBJLIST, list
            if plain_field and type(ftype).from_primitive is \
                    ovoo_fields.FieldType.from_primitive:
                coerce = type(ftype).coerce
                if coerce in _SAME_IF:
                    kind, same = _PLAIN, _SAME_IF[coerce]
                elif coerce is ovoo_fields.UUID.coerce:
                    kind, same = _UUID, str
                elif coerce is ovoo_fields.Enum.coerce:
                    kind, same = _ENUM, str
            from_prim.append((name, "_obj_" + name, field, kind, same,
                              field.nullable))
            if not (plain_field and isinstance(ftype, _NEVER_OBJECT)):
                maybe_objects.append("_obj_" + name)
        self.to_prim = tuple(to_prim)
        self.attrs = tuple((name, "_obj_" + name) for name in cls.fields)
        self.from_prim = tuple(from_prim)
        # Field name -> exact type of the elements of a _DICT field.
        self.dict_elems = dict_elems
        self.maybe_objects = tuple(maybe_objects)


def _plain_element(field):
    """The exact Python type whose values ``field`` (a dict's element
    field) reads from a primitive and coerces unchanged, or None."""
    if (type(field).to_primitive, type(field).from_primitive,
            type(field).coerce) != (ovoo_fields.Field.to_primitive,
                                    ovoo_fields.Field.from_primitive,
                                    ovoo_fields.Field.coerce):
        return None
    ftype = field._type
    if type(ftype).from_primitive is not ovoo_fields.FieldType.from_primitive:
        return None
    return _SAME_IF.get(type(ftype).coerce)


def _object_element(ftype):
    """The element Field of ``ftype`` when it is a List of objects whose
    element field has only the generic Field calls, else None."""
    if type(ftype) is not ovoo_fields.List:
        return None
    elem = ftype._element_type
    if (type(elem).to_primitive, type(elem).from_primitive,
            type(elem).coerce) != _GENERIC_FIELD or \
            type(elem._type) is not ovoo_fields.Object:
        return None
    return elem


def _copied_elements(ftype):
    """Is ``ftype`` a Dict or List whose elements are their own
    primitives (DictOfStringsField, ListOfStringsField & co.)?"""
    if type(ftype) not in (ovoo_fields.Dict, ovoo_fields.List):
        return False
    elem = ftype._element_type
    return (type(elem).to_primitive is ovoo_fields.Field.to_primitive and
            type(elem._type).to_primitive is
            ovoo_fields.FieldType.to_primitive)


def _plain_dict(value, same, nullable):
    # Keys must be str (CoercedDict's check); values exactly ``same``, or
    # None where the element field is nullable.
    for key, item in value.items():
        if type(key) is not str:
            return False
        if type(item) is not same and not (item is None and nullable):
            return False
    return True


def plan_for(cls):
    plan = _PLANS.get(cls)
    if plan is None or plan.fields is not cls.fields:
        plan = _PLANS[cls] = Plan(cls)
    return plan


def fields_to_primitive(obj):
    """{name: primitive} of the set fields, as oslo's obj_to_primitive."""
    primitive = {}
    values = obj.__dict__
    for name, attr, field, out in plan_for(type(obj)).to_prim:
        if attr not in values:
            continue
        value = values[attr]
        if value is None or out == _TO_COPY:
            primitive[name] = value
        elif out == _TO_OBJECT:
            # Object.to_primitive, without the two generic calls.
            primitive[name] = value.obj_to_primitive()
        elif out == _TO_OBJLIST:
            # List.to_primitive: each element's Field then Object call.
            primitive[name] = [None if item is None
                               else item.obj_to_primitive()
                               for item in value]
        elif out == _TO_DICT:
            # Dict.to_primitive with elements that are their own primitives.
            primitive[name] = dict(value)
        elif out == _TO_LIST:
            primitive[name] = list(value)
        elif out == _TO_DATETIME and type(value) is datetime.datetime and \
                value.year >= 1000 and (value.tzinfo is None or
                                        value.tzinfo is _UTC):
            # oslo's isotime, without strftime and tzname.
            primitive[name] = "%04d-%02d-%02dT%02d:%02d:%02dZ" % (
                value.year, value.month, value.day, value.hour,
                value.minute, value.second)
        else:
            primitive[name] = field.to_primitive(obj, name, value)
    return primitive


def fields_from_primitive(obj, objdata):
    """Set ``obj``'s fields from the primitive's data, as oslo's
    _obj_from_primitive does through the property setters."""
    values = obj.__dict__
    plan = plan_for(type(obj))
    for name, attr, field, kind, same, nullable in plan.from_prim:
        if name not in objdata:
            continue
        value = objdata[name]
        if value is None:
            if nullable:
                values[attr] = None
                continue
        elif type(value) is same:
            if kind == _PLAIN or (
                    kind == _UUID and _UUID_RE.match(value)) or (
                    kind == _ENUM and value in field._type._valid_values):
                values[attr] = value
                continue
            if kind == _OBJECT:
                # Object.from_primitive, then the setter's Object.coerce
                # (which only checks the name).
                child = obj.obj_from_primitive(value, obj._context)
                if child.obj_name() == field._type._obj_name:
                    values[attr] = child
                    continue
                value = child
            elif kind == _DICT:
                # Dict.from_primitive then the setter's Dict.coerce, which
                # for such values copy every item unchanged into a
                # CoercedDict bound to this object and field.
                elem = field._type._element_type
                if _plain_dict(value, plan.dict_elems[name], elem.nullable):
                    coerced = ovoo_fields.CoercedDict()
                    coerced.enable_coercing(elem, obj, name)
                    dict.update(coerced, value)
                    values[attr] = coerced
                    continue
            elif kind == _OBJLIST:
                value = _object_list(obj, name, attr, field, value)
                if value is None:
                    continue
            elif kind == _DATETIME:
                # What parse_isotime then coerce give for isotime's form.
                match = _ISOTIME_RE.match(value)
                if match:
                    values[attr] = datetime.datetime(
                        *map(int, match.groups()), tzinfo=_UTC)
                    continue
        setattr(obj, name, field.from_primitive(obj, name, value))


def _object_list(obj, name, attr, field, items):
    """List.from_primitive then the setter's List.coerce for a list of
    object primitives: when every child is of the element's object type
    (all Object.coerce checks), the CoercedList is filled without one
    Field.coerce call per child and None is returned; otherwise the
    children, for the setter to coerce (and refuse) as oslo does."""
    elem = field._type._element_type
    children = [item if item is None or isinstance(
                    item, ovoo_base.VersionedObject)
                else obj.obj_from_primitive(item, obj._context)
                for item in items]
    wanted = elem._type._obj_name
    for child in children:
        if child is None or child.obj_name() != wanted:
            return children
    coerced = ovoo_fields.CoercedList()
    coerced.enable_coercing(elem, obj, name)
    list.extend(coerced, children)
    obj._changed_fields.add(name)
    obj.__dict__[attr] = coerced
    return None


def what_changed(obj):
    """oslo's obj_what_changed: the recorded changes plus every field
    holding an object that has changes of its own."""
    fields = obj.fields
    changes = {f for f in obj._changed_fields if f in fields}
    values = obj.__dict__
    for attr in plan_for(type(obj)).maybe_objects:
        value = values.get(attr)
        if (value is not None and
                isinstance(value, ovoo_base.VersionedObject) and
                value.obj_what_changed()):
            changes.add(attr[5:])
    return changes


def _fast_setter(name, attr, field, kind, same):
    """The property setter oslo makes (coerce, read-only check, change
    recorded), without the coerce call when the value is already what
    coerce would return (see Plan)."""
    coerce = field.coerce
    read_only = field.read_only
    valid = field._type._valid_values if kind == _ENUM else None

    def setter(self, value):
        if not (type(value) is same and (
                kind == _PLAIN or
                (kind == _UUID and _UUID_RE.match(value)) or
                (kind == _ENUM and value in valid))):
            value = coerce(self, name, value)
        values = self.__dict__
        if read_only and attr in values:
            if values[attr] != value:
                raise ovoo_exc.ReadOnlyFieldError(field=name)
            return
        self._changed_fields.add(name)
        values[attr] = value

    return setter


def _fast_getter(name, attr):
    def getter(self):
        try:
            return self.__dict__[attr]
        except KeyError:
            self.obj_load_attr(name)
            return getattr(self, attr)

    return getter


def _deleter(name, attr):
    def deleter(self):
        if attr not in self.__dict__:
            raise AttributeError("No such attribute `%s'" % name)
        del self.__dict__[attr]

    return deleter


def install_properties(cls):
    """Replace the field properties oslo's registry made for ``cls`` by
    equivalent ones that skip the generic calls for plain values (setting
    a field is the commonest thing objects do: every _from_db_object)."""
    for name, attr, field, kind, same, _null in plan_for(cls).from_prim:
        if kind in (_SLOW, _DATETIME, _OBJECT, _DICT, _OBJLIST):
            continue
        setattr(cls, name, property(_fast_getter(name, attr),
                                    _fast_setter(name, attr, field, kind,
                                                 same),
                                    _deleter(name, attr)))
