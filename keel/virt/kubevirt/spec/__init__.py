"""Render Kubernetes objects (plain dicts) for one instance.

Pure functions of the instance, its flavor and image properties and the
configuration: no API access, so they are unit-tested with golden output.
"""
from keel import exception


class KubeVirtUnsupported(exception.Invalid):
    """A flavor or image asks for what KubeVirt cannot express; an
    ``Invalid`` so the API answers 400 naming the property."""
    msg_fmt = ("The KubeVirt driver cannot honour %(prop)s=%(value)s: "
               "%(reason)s")


def field(obj, name, default=None):
    """An attribute of a versioned object (or any object) without lazy
    loading: an unset field is ``default``, never a conductor call."""
    if obj is None:
        return default
    is_set = getattr(obj, "obj_attr_is_set", None)
    if is_set is not None:
        try:
            if not is_set(name):
                return default
        except AttributeError:
            return default
    value = getattr(obj, name, default)
    return default if value is None else value


def extra_spec(flavor, key, image_props=None, image_key=None):
    """A flavor extra spec, else the image property (flavor wins, as in
    Nova when both agree; conflicts are for the caller to check)."""
    specs = field(flavor, "extra_specs") or {}
    if key in specs and specs[key] not in (None, ""):
        return specs[key]
    if image_key:
        return image_prop(image_props, image_key)
    return None


def image_prop(image_props, name, default=None):
    """An image property from an ImageMetaProps or a plain dict."""
    if image_props is None:
        return default
    if isinstance(image_props, dict):
        value = image_props.get(name)
    else:
        try:
            value = image_props.get(name)
        except AttributeError:
            value = None
    return default if value is None else value


def bool_value(value):
    return str(value).strip().lower() in ("1", "true", "yes", "on",
                                          "required")
