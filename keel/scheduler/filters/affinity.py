"""Server-group and instance-placement filters: ServerGroupAffinityFilter,
ServerGroupAntiAffinityFilter, SameHostFilter, DifferentHostFilter.

``host_state.instances`` holds the uuids of the instances on the host
(instances placed earlier in the same request included);
``instance_group.hosts`` the hosts of the group's members.
"""
from keel.scheduler import filters


def _group(spec, policy):
    group = spec.instance_group if spec.obj_attr_is_set(
        "instance_group") else None
    if group is None or not group.obj_attr_is_set("policy") or \
            group.policy != policy:
        return None
    return group


def members_on_host(host_state, group):
    members = set(group.members or []) if group.obj_attr_is_set(
        "members") else set()
    return len(members & set(host_state.instances))


class ServerGroupAntiAffinityFilter(filters.BaseHostFilter):
    """At most ``max_server_per_host`` (rule, default 1) members of an
    anti-affinity group per host."""

    def applies(self, spec):
        return _group(spec, "anti-affinity") is not None

    def host_passes(self, host_state, spec):
        group = _group(spec, "anti-affinity")
        if group is None:
            return True
        limit = int((group.rules or {}).get("max_server_per_host", 1))
        count = members_on_host(host_state, group)
        hosts = (group.hosts or []) if group.obj_attr_is_set("hosts") else []
        if not count and host_state.host in hosts:
            count = 1
        return count + 1 <= limit


class ServerGroupAffinityFilter(filters.BaseHostFilter):
    """Members of an affinity group all go to the host of the first."""

    def applies(self, spec):
        return _group(spec, "affinity") is not None

    def host_passes(self, host_state, spec):
        group = _group(spec, "affinity")
        if group is None:
            return True
        hosts = (group.hosts or []) if group.obj_attr_is_set("hosts") else []
        return not hosts or host_state.host in hosts


def _hint_uuids(spec, name):
    value = spec.get_scheduler_hint(name)
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


class SameHostFilter(filters.BaseHostFilter):
    """Hint same_host: the host runs at least one of these instances."""

    def applies(self, spec):
        return bool(_hint_uuids(spec, "same_host"))

    def host_passes(self, host_state, spec):
        wanted = _hint_uuids(spec, "same_host")
        if not wanted:
            return True
        return bool(set(wanted) & set(host_state.instances))


class DifferentHostFilter(filters.BaseHostFilter):
    """Hint different_host: the host runs none of these instances."""

    def applies(self, spec):
        return bool(_hint_uuids(spec, "different_host"))

    def host_passes(self, host_state, spec):
        avoid = _hint_uuids(spec, "different_host")
        if not avoid:
            return True
        return not set(avoid) & set(host_state.instances)
