"""The resource tracker: one per compute service, for all its nodes.

For every node the driver reports it keeps the ``compute_nodes`` record (via
``objects.ComputeNode``, so on a compute host the writes go through the
conductor) and the node's Placement resource provider in step with the
hypervisor: provider name = hypervisor_hostname, provider uuid = compute node
uuid, inventory from the driver's ``update_provider_tree`` (VCPU, MEMORY_MB,
DISK_GB with ``[DEFAULT]`` allocation ratios and reserved amounts), and
capability traits plus ``COMPUTE_STATUS_DISABLED`` while the service is
disabled.  Nothing is written when nothing changed: the record is saved only
for changed fields and the report client skips unchanged inventory/traits.
"""
import logging
import threading

import os_traits
from oslo_utils import uuidutils

from keel.compute.resources import claims
from keel.compute.resources import orphans
from keel import exception
from keel import objects
from keel.virt import driver as virt_driver

LOG = logging.getLogger(__name__)

# compute_nodes columns copied from the driver's get_available_resource.
_COPIED_FIELDS = ("vcpus", "memory_mb", "local_gb", "hypervisor_type",
                  "hypervisor_version", "hypervisor_hostname", "cpu_info",
                  "disk_available_least", "numa_topology")

_RATIO_KINDS = ("cpu", "ram", "disk")


def _set_if_changed(obj, field, value):
    """Assign only real changes, so save() writes just those columns."""
    if not obj.obj_attr_is_set(field) or getattr(obj, field) != value:
        setattr(obj, field, value)


class ResourceTracker(claims.InstanceClaims):
    def __init__(self, host, driver, reportclient=None, conf=None):
        if conf is None:
            from keel.conf import CONF as conf
        objects.register_all()   # idempotent; ComputeNode must be reachable
        self.conf = conf
        self.host = host
        self.driver = driver
        self._reportclient = reportclient
        self.compute_nodes = {}     # nodename -> objects.ComputeNode
        self.service_ref = None     # set by the compute manager when known
        # Service disabled state; the manager sets it (or supplies a callable
        # that reads it) so the provider carries COMPUTE_STATUS_DISABLED.
        self.service_disabled = False
        self.is_service_disabled = None
        # Updates for one node never interleave (periodic task vs. claims).
        self._lock = threading.RLock()
        # The driver's node list whose records were last found to have no
        # vanished sibling; while the driver reports the same list, the
        # host's records are not re-read every period.
        self._nodes_checked = None

    @property
    def reportclient(self):
        if self._reportclient is None:
            from keel.clients import report
            self._reportclient = report.ReportClient(conf=self.conf)
        return self._reportclient

    def get_node_uuid(self, nodename):
        return self.compute_nodes[nodename].uuid

    # -- periodic / start-up -------------------------------------------------
    def update_available_resource(self, context, startup=False):
        """Refresh every node of this host: record, then Placement."""
        nodenames = self.driver.get_available_nodes(refresh=True)
        for nodename in nodenames:
            self._update_available_resource_for_node(context, nodename,
                                                     startup)
        self._remove_orphan_nodes(context, nodenames)

    def remove_deleted_instances_allocations(self, context,
                                             consumers_by_node=None):
        """Free allocations deleted instances left on this host's nodes
        (a separate, slower period than the refresh: it always reads
        Placement, while an unchanged refresh reads nothing).
        ``consumers_by_node``: {node uuid: allocations} already read."""
        removed = []
        known = consumers_by_node or {}
        for cn in list(self.compute_nodes.values()):
            removed += orphans.remove_deleted_instances_allocations(
                context, self.reportclient, cn, known.get(cn.uuid))
        return removed

    def _remove_orphan_nodes(self, context, nodenames):
        """Drop records and providers of nodes the driver no longer reports
        (a KubeVirt node removed from the cluster)."""
        if not nodenames:
            # An empty answer is more likely a hypervisor hiccup than every
            # node gone at once; deleting everything would be unrecoverable.
            LOG.warning("Driver reported no nodes for %s; keeping records",
                        self.host)
            return
        reported = frozenset(nodenames)
        if reported == self._nodes_checked:
            return
        try:
            in_db = objects.ComputeNodeList.get_all_by_host(context,
                                                            self.host)
        except exception.ComputeHostNotFound:
            return
        kept = False
        for cn in in_db:
            if cn.hypervisor_hostname in nodenames:
                continue
            try:
                # No cascade: a provider still holding allocations belongs
                # to instances an operator must deal with first.
                self.reportclient.delete_resource_provider(context, cn.uuid)
            except Exception as exc:  # noqa: BLE001 - retried next period
                LOG.warning("Node %s is gone but its provider %s could not "
                            "be deleted (%s); keeping its record",
                            cn.hypervisor_hostname, cn.uuid, exc)
                kept = True
                continue
            cn.destroy()
            self.compute_nodes.pop(cn.hypervisor_hostname, None)
            LOG.info("Deleted compute node record and provider of vanished "
                     "node %s (%s)", cn.hypervisor_hostname, cn.uuid)
        # A vanished node still holding allocations is retried next period.
        self._nodes_checked = None if kept else reported

    def _update_available_resource_for_node(self, context, nodename,
                                            startup):
        resources = self.driver.get_available_resource(nodename)
        resources.setdefault("hypervisor_hostname", nodename)
        with self._lock:
            # Builds claimed here but not spawned yet: the hypervisor does
            # not know them, the node record must still count them.
            vcpus, mem, disk = self.in_flight_usage(nodename)
            for key, amount in (("vcpus_used", vcpus),
                                ("memory_mb_used", mem),
                                ("local_gb_used", disk)):
                resources[key] = resources.get(key, 0) + amount
            cn = self._init_compute_node(context, nodename, resources)
            self._copy_resources(cn, resources)
            if cn.obj_what_changed():
                cn.save()
            self._update_placement(context, cn, nodename, startup)

    # -- the compute_nodes record ----------------------------------------
    def _node_uuid_from_driver(self, nodename, resources):
        if resources.get("uuid"):
            return resources["uuid"]
        try:
            by_uuid = self.driver.get_nodenames_by_uuid()
        except NotImplementedError:
            return None
        for node_uuid, name in by_uuid.items():
            if name == nodename:
                return node_uuid
        return None

    def _init_compute_node(self, context, nodename, resources):
        cn = self.compute_nodes.get(nodename)
        if cn is not None:
            return cn
        try:
            cn = objects.ComputeNode.get_by_host_and_nodename(
                context, self.host, nodename)
            driver_uuid = self._node_uuid_from_driver(nodename, resources)
            if driver_uuid and driver_uuid != cn.uuid:
                # The record's uuid is what Placement and instances know.
                LOG.warning("Node %s: driver reports uuid %s but the compute "
                            "node record has %s; keeping the record's",
                            nodename, driver_uuid, cn.uuid)
        except exception.ComputeHostNotFound:
            cn = self._create_compute_node(context, nodename, resources)
        self.compute_nodes[nodename] = cn
        return cn

    def _create_compute_node(self, context, nodename, resources):
        cn = objects.ComputeNode(context)
        cn.host = self.host
        cn.uuid = (self._node_uuid_from_driver(nodename, resources)
                   or uuidutils.generate_uuid())
        for kind in _RATIO_KINDS:
            configured = getattr(self.conf, "%s_allocation_ratio" % kind)
            setattr(cn, "%s_allocation_ratio" % kind, configured or getattr(
                self.conf, "initial_%s_allocation_ratio" % kind))
        if self.service_ref is not None:
            cn.service_id = self.service_ref.id
        self._copy_resources(cn, resources)
        cn.create()
        LOG.info("Compute node record created for %s:%s with uuid %s",
                 self.host, nodename, cn.uuid)
        return cn

    def _copy_resources(self, cn, resources):
        for field in _COPIED_FIELDS:
            if field in resources:
                _set_if_changed(cn, field, resources[field])
        # Usage as Nova counts it: reserved amounts are "used" on the record.
        reserved_disk_gb = virt_driver.mb_to_ceil_gb(
            self.conf.reserved_host_disk_mb)
        mem_used = (self.conf.reserved_host_memory_mb
                    + resources.get("memory_mb_used", 0))
        disk_used = reserved_disk_gb + resources.get("local_gb_used", 0)
        _set_if_changed(cn, "vcpus_used", resources.get("vcpus_used", 0))
        _set_if_changed(cn, "memory_mb_used", mem_used)
        _set_if_changed(cn, "local_gb_used", disk_used)
        _set_if_changed(cn, "free_ram_mb", resources["memory_mb"] - mem_used)
        _set_if_changed(cn, "free_disk_gb", resources["local_gb"] - disk_used)
        _set_if_changed(cn, "current_workload", 0)
        # Nova records the compute host's [DEFAULT]/my_ip on the node (the
        # hypervisor's host_ip in the API).
        # The field holds an IPAddress: compared as text, or the option's
        # string never equals it and every period rewrites the record.
        if not cn.obj_attr_is_set("host_ip") or \
                str(cn.host_ip or "") != str(self.conf.my_ip or ""):
            cn.host_ip = self.conf.my_ip
        try:
            running = self.driver.get_num_instances()
        except NotImplementedError:
            running = 0
        _set_if_changed(cn, "running_vms", running)
        # An explicitly configured ratio always wins on the record too.
        for kind in _RATIO_KINDS:
            configured = getattr(self.conf, "%s_allocation_ratio" % kind)
            if configured:
                _set_if_changed(cn, "%s_allocation_ratio" % kind, configured)
        if not cn.obj_attr_is_set("stats"):
            cn.stats = {}
        self._copy_hv_specs(cn, resources.get("supported_instances") or [])

    @staticmethod
    def _copy_hv_specs(cn, supported):
        # [arch, hv_type, vm_mode] triples; compared as lists so an
        # unchanged host does not rewrite the column every period.
        wanted = [list(s) for s in supported]
        if cn.obj_attr_is_set("supported_hv_specs") and [
                s.to_list() for s in cn.supported_hv_specs] == wanted:
            return
        cn.supported_hv_specs = [objects.HVSpec.from_list(s) for s in wanted]

    # -- Placement ------------------------------------------------------------
    def _disabled(self):
        if self.is_service_disabled is not None:
            return bool(self.is_service_disabled())
        return self.service_disabled

    def _sync_traits(self, tree, nodename):
        """Capability traits and the disabled trait on the node provider;
        other traits (the driver's or an operator's) are left alone."""
        traits = set(tree.data(nodename).traits)
        for trait, supported in self.driver.capabilities_as_traits().items():
            if supported:
                traits.add(trait)
            else:
                traits.discard(trait)
        if self._disabled():
            traits.add(os_traits.COMPUTE_STATUS_DISABLED)
        else:
            traits.discard(os_traits.COMPUTE_STATUS_DISABLED)
        tree.update_traits(nodename, traits)

    def _update_placement(self, context, cn, nodename, startup):
        if startup:
            self.reportclient.invalidate_provider_tree(cn.uuid)
        tree = self.reportclient.get_provider_tree_and_ensure_root(
            context, cn.uuid, name=cn.hypervisor_hostname)
        self.driver.update_provider_tree(tree, nodename)
        self._sync_traits(tree, nodename)
        self.reportclient.update_from_provider_tree(context, tree)

    def update_compute_provider_status(self, context, disabled):
        """Flip COMPUTE_STATUS_DISABLED on every node now (the API's
        enable/disable of the service), without waiting for the period."""
        with self._lock:
            self.service_disabled = disabled
            for nodename, cn in self.compute_nodes.items():
                tree = self.reportclient.get_provider_tree_and_ensure_root(
                    context, cn.uuid, name=cn.hypervisor_hostname)
                self._sync_traits(tree, nodename)
                self.reportclient.update_from_provider_tree(context, tree)
