"""ComputeFilter and AvailabilityZoneFilter."""
import datetime

from oslo_utils import timeutils

from keel.conf import CONF
from keel.scheduler import filters
from keel import servicegroup


class ComputeFilter(filters.BaseHostFilter):
    """Only hosts whose compute service is enabled and up."""
    run_filter_once_per_request = True

    def __init__(self):
        self.servicegroup_api = servicegroup.API()

    def host_passes(self, host_state, spec):
        # A Service object or the light dict of the host manager.
        service = host_state.service
        if service is None:
            return False
        disabled = service.get("disabled") if isinstance(
            service, dict) else service.disabled
        if disabled:
            return False
        return bool(self.servicegroup_api.is_up(service))

    def filter_all(self, host_states, spec):
        # The host manager's light service rows answered inline with one
        # clock read (the servicegroup rule: enabled, not forced down, a
        # heartbeat at most service_down_time away); anything else, and
        # every host that would fail, goes through host_passes.
        now = timeutils.utcnow()
        if now.tzinfo is not None:
            now = now.replace(tzinfo=None)
        down_time = self.servicegroup_api._down_time()
        earliest = latest = None     # every host through host_passes
        if type(down_time) is int:
            # |now - seen| <= down_time as two datetime comparisons (exact
            # for whole seconds): no timedelta per host.
            try:
                window = datetime.timedelta(seconds=down_time)
                earliest, latest = now - window, now + window
            except OverflowError:
                pass
        passed = []
        append = passed.append
        datetime_type = datetime.datetime
        for host_state in host_states:
            service = host_state.service
            if type(service) is dict and not service["disabled"] and \
                    not service["forced_down"]:
                seen = service["last_seen_up"]
                if type(seen) is datetime_type and seen.tzinfo is None \
                        and earliest is not None \
                        and earliest <= seen <= latest:
                    append(host_state)
                    continue
            if self.host_passes(host_state, spec):
                append(host_state)
        return passed


def host_zones(host_state):
    zones = {a.availability_zone for a in host_state.aggregates or []
             if a.availability_zone}
    return zones or {CONF.default_availability_zone}


class AvailabilityZoneFilter(filters.BaseHostFilter):
    """The host is in the requested availability zone (its aggregates'
    zones, or [DEFAULT]/default_availability_zone)."""
    run_filter_once_per_request = True

    def applies(self, spec):
        return bool(spec.obj_attr_is_set("availability_zone") and
                    spec.availability_zone)

    def host_passes(self, host_state, spec):
        az = spec.availability_zone if spec.obj_attr_is_set(
            "availability_zone") else None
        if not az:
            return True
        return az in host_zones(host_state)


class NumInstancesFilter(filters.BaseHostFilter):
    """Fewer than [filter_scheduler]/max_instances_per_host instances
    (or the aggregates' smallest ``max_instances_per_host``)."""

    def host_passes(self, host_state, spec):
        limit = _aggregate_int(host_state, "max_instances_per_host",
                               CONF.filter_scheduler.max_instances_per_host)
        return host_state.num_instances < limit


class IoOpsFilter(filters.BaseHostFilter):
    """At most [filter_scheduler]/max_io_ops_per_host concurrent I/O-heavy
    operations (or the aggregates' smallest ``max_io_ops_per_host``)."""

    def host_passes(self, host_state, spec):
        limit = _aggregate_int(host_state, "max_io_ops_per_host",
                               CONF.filter_scheduler.max_io_ops_per_host)
        return host_state.num_io_ops < limit


def _aggregate_int(host_state, key, default):
    values = []
    for agg in host_state.aggregates or []:
        try:
            values.append(int((agg.metadata or {})[key]))
        except (KeyError, ValueError):
            continue
    return min(values) if values else default
