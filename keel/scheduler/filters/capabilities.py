"""ComputeCapabilitiesFilter and AggregateInstanceExtraSpecsFilter: flavor
extra specs matched against the host's attributes or its aggregates'
metadata."""
from oslo_serialization import jsonutils

from keel.scheduler import filters
from keel.scheduler.filters import extra_specs_ops


def _extra_specs(spec):
    flavor = spec.flavor
    if not flavor.obj_attr_is_set("extra_specs"):
        return {}
    return flavor.extra_specs or {}


def _lookup(host_state, path):
    """Walk ``a:b:c`` through attributes, dicts and JSON strings."""
    cap = host_state
    for part in path:
        if cap is None:
            return None
        if isinstance(cap, str):
            try:
                cap = jsonutils.loads(cap)
            except ValueError:
                return None
        if isinstance(cap, dict):
            cap = cap.get(part)
        else:
            cap = getattr(cap, part, None)
    return cap


class ComputeCapabilitiesFilter(filters.BaseHostFilter):
    """Unscoped and ``capabilities:`` extra specs must match the host's
    attributes (``capabilities:cpu_info:arch``, ``hypervisor_type``...)."""
    run_filter_once_per_request = True

    @staticmethod
    def _wanted(spec):
        wanted = []
        for key, req in _extra_specs(spec).items():
            scope = key.split(":")
            if len(scope) > 1:
                if scope[0] != "capabilities":
                    continue
                scope = scope[1:]
            wanted.append((scope, req))
        return wanted

    def applies(self, spec):
        return bool(self._wanted(spec))

    def host_passes(self, host_state, spec):
        for scope, req in self._wanted(spec):
            value = _lookup(host_state, scope)
            if value is None or not extra_specs_ops.match(value, req):
                return False
        return True


SCOPE = "aggregate_instance_extra_specs"


def aggregate_metadata(host_state):
    """{key: set(values)} over the host's aggregates."""
    meta = {}
    for agg in host_state.aggregates or []:
        for key, value in (agg.metadata or {}).items():
            meta.setdefault(key, set()).add(value)
    return meta


class AggregateInstanceExtraSpecsFilter(filters.BaseHostFilter):
    """Unscoped and ``aggregate_instance_extra_specs:`` extra specs must
    match a metadata value of one of the host's aggregates."""
    run_filter_once_per_request = True

    def applies(self, spec):
        return bool(_extra_specs(spec))

    def host_passes(self, host_state, spec):
        extra = _extra_specs(spec)
        if not extra:
            return True
        metadata = aggregate_metadata(host_state)
        for key, req in extra.items():
            scope = key.split(":", 1)
            if len(scope) > 1:
                if scope[0] != SCOPE:
                    continue
                key = scope[1]
            values = metadata.get(key)
            if not values:
                return False
            if not any(extra_specs_ops.match(v, req) for v in values):
                return False
        return True


class AggregateMultiTenancyIsolation(filters.BaseHostFilter):
    """A host in aggregates with ``filter_tenant_id*`` metadata takes only
    those tenants (comma-separated project ids)."""
    run_filter_once_per_request = True

    def host_passes(self, host_state, spec):
        allowed = set()
        for agg in host_state.aggregates or []:
            for key, value in (agg.metadata or {}).items():
                if key.startswith("filter_tenant_id"):
                    allowed.update(v.strip() for v in value.split(","))
        return not allowed or spec.project_id in allowed
