"""Soft server-group weighers: prefer (soft-affinity) or avoid
(soft-anti-affinity) hosts by the number of group members they run."""
from keel.scheduler.filters import affinity as affinity_filters
from keel.scheduler import weighers


class _SoftGroupWeigher(weighers.BaseHostWeigher):
    policy = None
    sign = 1

    def _group(self, spec):
        group = spec.instance_group if spec.obj_attr_is_set(
            "instance_group") else None
        if group is None or not group.obj_attr_is_set("policy") or \
                group.policy != self.policy:
            return None
        return group

    def is_noop(self, spec):
        return self._group(spec) is None

    def weigh(self, host_state, spec):
        group = self._group(spec)
        if group is None:
            return 0
        return self.sign * affinity_filters.members_on_host(host_state,
                                                            group)


class ServerGroupSoftAffinityWeigher(_SoftGroupWeigher):
    option = "soft_affinity_weight_multiplier"
    policy = "soft-affinity"


class ServerGroupSoftAntiAffinityWeigher(_SoftGroupWeigher):
    option = "soft_anti_affinity_weight_multiplier"
    policy = "soft-anti-affinity"
    sign = -1
