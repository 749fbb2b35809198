"""Resource weighers: free RAM, free vCPUs, free disk (a positive
multiplier spreads, a negative one stacks) and recent build failures."""
from keel.scheduler import weighers


class RAMWeigher(weighers.BaseHostWeigher):
    option = "ram_weight_multiplier"

    def weigh(self, host_state, spec):
        return host_state.free_ram_mb

    def weigh_all(self, host_states, spec):
        return [h.free_ram_mb for h in host_states]


class CPUWeigher(weighers.BaseHostWeigher):
    option = "cpu_weight_multiplier"

    def weigh(self, host_state, spec):
        total = host_state.vcpus_total * host_state.cpu_allocation_ratio
        return total - host_state.vcpus_used

    def weigh_all(self, host_states, spec):
        return [h.vcpus_total * h.cpu_allocation_ratio - h.vcpus_used
                for h in host_states]


class DiskWeigher(weighers.BaseHostWeigher):
    option = "disk_weight_multiplier"

    def weigh(self, host_state, spec):
        return host_state.free_disk_mb

    def weigh_all(self, host_states, spec):
        return [h.free_disk_mb for h in host_states]


class BuildFailureWeigher(weighers.BaseHostWeigher):
    """Hosts that recently failed builds sink (the multiplier counts
    against the number of failures)."""
    option = "build_failure_weight_multiplier"

    def weight_multiplier(self, host_state, default=None):
        return -1.0 * super().weight_multiplier(host_state, default)

    def weigh(self, host_state, spec):
        return host_state.failed_builds

    def weigh_all(self, host_states, spec):
        return [h.failed_builds for h in host_states]


class IoOpsWeigher(weighers.BaseHostWeigher):
    """Hosts busy with I/O-heavy tasks (builds, resizes, snapshots) sink
    with the default negative multiplier."""
    option = "io_ops_weight_multiplier"

    def weigh(self, host_state, spec):
        return host_state.num_io_ops

    def weigh_all(self, host_states, spec):
        return [h.num_io_ops for h in host_states]


class NumInstancesWeigher(weighers.BaseHostWeigher):
    """Instance count (multiplier 0 by default: no effect)."""
    option = "num_instances_weight_multiplier"

    def weigh(self, host_state, spec):
        return host_state.num_instances


class HypervisorVersionWeigher(weighers.BaseHostWeigher):
    """Newer hypervisors first with the default positive multiplier."""
    option = "hypervisor_version_weight_multiplier"

    def weigh(self, host_state, spec):
        return host_state.hypervisor_version or 0

    def weigh_all(self, host_states, spec):
        return [h.hypervisor_version or 0 for h in host_states]
