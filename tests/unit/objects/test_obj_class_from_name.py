"""KeelObject.obj_class_from_name finds the class oslo's finds for every
registered name and version (exact matches), and defers to oslo for
compatible older/newer versions and unknown names or versions."""
import pytest

from oslo_versionedobjects import base as ovoo_base
from oslo_versionedobjects import exception as ovoo_exc

from keel import objects
from keel.objects import base

objects.register_all()

_oslo = ovoo_base.VersionedObject.obj_class_from_name.__func__


def test_exact_versions_as_oslo():
    for name, classes in ovoo_base.VersionedObjectRegistry.obj_classes(
            ).items():
        for cls in classes:
            got = base.KeelObject.obj_class_from_name(name, cls.VERSION)
            assert got is _oslo(base.KeelObject, name, cls.VERSION)


def test_compatible_versions_as_oslo():
    # A minor version we do not have (older or newer) gets oslo's answer.
    major = objects.Instance.VERSION.split(".")[0]
    for ver in (major + ".0", major + ".99"):
        try:
            want = _oslo(base.KeelObject, "Instance", ver)
        except ovoo_exc.IncompatibleObjectVersion as exc:
            with pytest.raises(type(exc)):
                base.KeelObject.obj_class_from_name("Instance", ver)
        else:
            assert base.KeelObject.obj_class_from_name(
                "Instance", ver) is want


def test_unknown_name_and_major_still_raise():
    with pytest.raises(ovoo_exc.UnsupportedObjectError):
        base.KeelObject.obj_class_from_name("NoSuchThing", "1.0")
    with pytest.raises(ovoo_exc.IncompatibleObjectVersion):
        base.KeelObject.obj_class_from_name("Instance", "99.0")
