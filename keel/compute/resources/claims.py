"""Instance claims: the resource tracker's side of a build.

Placement holds the authoritative allocation (the scheduler made it), so a
claim here tests nothing and never writes to Placement; it keeps the
``compute_nodes`` record's usage columns in step with what is being built
and binds the instance to the node (host, node, launched_on, compute_id).
Builds still in flight are remembered so that the periodic refresh, which
reads usage from the hypervisor, still counts guests not spawned yet.

Build outcomes are counted in the node's stats (``failed_builds``): the
scheduler's BuildFailureWeigher steers new builds away from a node that
keeps failing, and one success resets the count (Nova's semantics).
"""
import contextlib

from keel import exception


def footprint(instance):
    """(vcpus, memory_mb, disk_gb) the instance's flavor uses."""
    flavor = instance.flavor if instance.obj_attr_is_set("flavor") else None
    src = flavor if flavor is not None else instance

    def get(name):
        try:
            return int(getattr(src, name, 0) or 0)
        except Exception:  # noqa: BLE001 - unset object fields
            return 0
    return (get("vcpus"), get("memory_mb"),
            get("root_gb") + get("ephemeral_gb"))


def _apply(cn, amounts, sign):
    vcpus, mem, disk = amounts
    cn.vcpus_used = max(0, (cn.vcpus_used or 0) + sign * vcpus)
    cn.memory_mb_used = max(0, (cn.memory_mb_used or 0) + sign * mem)
    cn.local_gb_used = max(0, (cn.local_gb_used or 0) + sign * disk)
    cn.free_ram_mb = (cn.memory_mb or 0) - cn.memory_mb_used
    cn.free_disk_gb = (cn.local_gb or 0) - cn.local_gb_used


class InstanceClaims(object):
    """Mixed into ResourceTracker (which provides ``compute_nodes``,
    ``driver`` and ``_lock``)."""

    def _claims_for(self, nodename):
        if not hasattr(self, "_in_flight"):
            self._in_flight = {}
        return self._in_flight.setdefault(nodename, {})

    def default_nodename(self):
        nodes = self.driver.get_available_nodes()
        return nodes[0] if nodes else None

    def _node(self, nodename):
        cn = self.compute_nodes.get(nodename)
        if cn is None:
            raise exception.ComputeResourcesUnavailable(
                reason="node %s is not tracked by this host" % nodename)
        return cn

    @contextlib.contextmanager
    def instance_claim(self, context, instance, nodename, allocations=None,
                       limits=None):
        """Bind ``instance`` to ``nodename`` and count its usage for the
        duration of the build; an error inside aborts the claim."""
        nodename = nodename or self.default_nodename()
        with self._lock:
            cn = self._node(nodename)
            amounts = footprint(instance)
            self._claims_for(nodename)[instance.uuid] = amounts
            _apply(cn, amounts, +1)
            cn.running_vms = (cn.running_vms or 0) + 1
            if cn.obj_what_changed():
                cn.save()
        # Saved by the build's next compare-and-swap (no extra write).
        instance.host = self.host
        instance.node = nodename
        instance.launched_on = self.host
        instance.compute_id = cn.id
        try:
            yield cn
        except Exception:
            self.abort_instance_claim(context, instance, nodename)
            raise
        with self._lock:
            # Spawned: from now on the hypervisor reports its usage.
            self._claims_for(nodename).pop(instance.uuid, None)

    def abort_instance_claim(self, context, instance, nodename):
        """Give back what a failed build counted; unbind the instance."""
        with self._lock:
            amounts = self._claims_for(nodename).pop(instance.uuid, None)
            cn = self.compute_nodes.get(nodename)
            if amounts is not None and cn is not None:
                _apply(cn, amounts, -1)
                cn.running_vms = max(0, (cn.running_vms or 0) - 1)
                if cn.obj_what_changed():
                    cn.save()
        instance.host = None
        instance.node = None
        instance.compute_id = None

    def remove_instance_usage(self, context, instance):
        """A deleted instance's usage leaves the node record now."""
        nodename = instance.node
        with self._lock:
            self._claims_for(nodename).pop(instance.uuid, None)
            cn = self.compute_nodes.get(nodename)
            if cn is None:
                return
            _apply(cn, footprint(instance), -1)
            cn.running_vms = max(0, (cn.running_vms or 0) - 1)
            if cn.obj_what_changed():
                cn.save()

    def claimed_uuids(self):
        """Instances whose build holds a claim here right now."""
        with self._lock:
            return {uuid for claims in getattr(self, "_in_flight",
                                               {}).values()
                    for uuid in claims}

    def in_flight_usage(self, nodename):
        """Usage of builds claimed but not spawned (for the refresh)."""
        with self._lock:
            claims = list(self._claims_for(nodename).values())
        return tuple(sum(c[i] for c in claims) for i in range(3))

    # -- build outcome stats -------------------------------------------------
    def _set_failed_builds(self, nodename, value):
        with self._lock:
            cn = self.compute_nodes.get(nodename)
            if cn is None:
                return
            stats = dict(cn.stats or {}) if cn.obj_attr_is_set("stats") \
                else {}
            current = int(stats.get("failed_builds", 0) or 0)
            new = value(current)
            if new == current:
                return
            stats["failed_builds"] = str(new)
            cn.stats = stats
            cn.save()

    def build_failed(self, nodename):
        self._set_failed_builds(nodename, lambda n: n + 1)

    def build_succeeded(self, nodename):
        self._set_failed_builds(nodename, lambda n: 0)
