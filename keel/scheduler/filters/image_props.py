"""Image-driven filters: ImagePropertiesFilter, IsolatedHostsFilter and
AggregateImagePropertiesIsolation."""
import operator
import re

from keel.conf import CONF
from keel.scheduler import filters
from keel.scheduler.filters import capabilities


def _props(spec):
    image = spec.image if spec.obj_attr_is_set("image") else None
    if image is None or not image.obj_attr_is_set("properties"):
        return None
    return image.properties


def _prop(props, name, default=None):
    if props is None or not props.obj_attr_is_set(name):
        return default
    return getattr(props, name)


def version_to_str(version):
    """Nova's integer hypervisor version (major*1e6 + minor*1e3 + micro)
    as "major.minor.micro"."""
    parts = []
    while version:
        parts.insert(0, str(version % 1000))
        version //= 1000
    return ".".join(parts)


_VER_OPS = {"<": operator.lt, "<=": operator.le, "==": operator.eq,
            "!=": operator.ne, ">=": operator.ge, ">": operator.gt}
_PRED = re.compile(r"^\s*(<=|>=|==|!=|<|>)\s*([0-9][0-9.]*)\s*$")


def _as_tuple(text):
    return tuple(int(p) for p in text.split(".") if p != "")


def version_satisfies(version_str, predicate):
    """``predicate`` like ">= 6.0" or ">=6.0, <7" against "6.1.2"."""
    have = _as_tuple(version_str)
    for clause in str(predicate).split(","):
        m = _PRED.match(clause)
        if not m:
            return False
        want = _as_tuple(m.group(2))
        width = max(len(have), len(want))
        pad = lambda t: t + (0,) * (width - len(t))  # noqa: E731
        if not _VER_OPS[m.group(1)](pad(have), pad(want)):
            return False
    return True


def _canon(value):
    return str(value).lower() if value else None


class ImagePropertiesFilter(filters.BaseHostFilter):
    """The host supports the image's architecture, hypervisor type, VM
    mode and requested hypervisor version."""
    run_filter_once_per_request = True

    @staticmethod
    def _wanted(props):
        return (
            _canon(_prop(props, "hw_architecture", CONF.filter_scheduler
                         .image_properties_default_architecture)),
            _canon(_prop(props, "img_hv_type")),
            _canon(_prop(props, "hw_vm_mode")))

    def applies(self, spec):
        return any(self._wanted(_props(spec)))

    def host_passes(self, host_state, spec):
        props = _props(spec)
        wanted = self._wanted(props)
        if not any(wanted):
            return True
        supported = host_state.supported_instances or []
        if not supported:
            return False
        needed_version = _prop(props, "img_hv_requested_version")
        for entry in supported:
            entry = tuple(_canon(x) for x in entry)
            if all(w is None or w in entry for w in wanted):
                version = host_state.hypervisor_version
                if not (version and needed_version) or version_satisfies(
                        version_to_str(version), needed_version):
                    return True
        return False


class IsolatedHostsFilter(filters.BaseHostFilter):
    """[filter_scheduler]/isolated_images run only on isolated_hosts; with
    restrict_isolated_hosts_to_isolated_images, isolated hosts run only
    those images."""
    run_filter_once_per_request = True

    def applies(self, spec):
        conf = CONF.filter_scheduler
        return bool(conf.isolated_images or conf.isolated_hosts)

    def host_passes(self, host_state, spec):
        conf = CONF.filter_scheduler
        if not conf.isolated_images and not conf.isolated_hosts:
            return True
        image = spec.image if spec.obj_attr_is_set("image") else None
        image_ref = image.id if image is not None and \
            image.obj_attr_is_set("id") else None
        image_isolated = image_ref in conf.isolated_images
        host_isolated = host_state.host in conf.isolated_hosts
        if conf.restrict_isolated_hosts_to_isolated_images:
            return image_isolated == host_isolated
        return not image_isolated or host_isolated


class AggregateImagePropertiesIsolation(filters.BaseHostFilter):
    """An image property that is also an aggregate metadata key must have
    one of that key's values (optionally only keys in a namespace)."""
    run_filter_once_per_request = True

    def host_passes(self, host_state, spec):
        props = _props(spec)
        if props is None:
            return True
        conf = CONF.filter_scheduler
        namespace = conf.aggregate_image_properties_isolation_namespace
        separator = conf.aggregate_image_properties_isolation_separator
        metadata = capabilities.aggregate_metadata(host_state)
        for key, options in metadata.items():
            if namespace and not key.startswith(namespace + separator):
                continue
            if key not in props.fields or not props.obj_attr_is_set(key):
                continue
            value = getattr(props, key)
            values = value if isinstance(value, (list, tuple, set)) \
                else [value]
            if not any(str(v) in options for v in values):
                return False
        return True
