"""The compute/scheduler side of Placement: a cached provider tree plus the
allocation calls Nova's ``SchedulerReportClient`` makes.

Why a cache: a compute host re-reports its resources every minute and a
process may simulate hundreds of hosts.  Placement is asked about a provider
once (inventory, traits, aggregates, generation), again only every
``[compute]/resource_provider_association_refresh`` seconds, and written to
only when the desired state differs from the cached one.  A failed write
drops the provider's tree from the cache so the next update starts from what
Placement really holds.
"""
import logging
import threading
import time

from keel import exception
from keel.clients import placement as pl
from keel.compute.resources.provider_tree import ProviderTree

LOG = logging.getLogger(__name__)

# Attempts for a write that hits a provider-generation conflict; each retry
# first re-reads the provider (a conflict means someone else just wrote).
GENERATION_RETRIES = 4


class ReportClient(object):
    def __init__(self, placement_client=None, conf=None):
        if conf is None:
            from keel.conf import CONF as conf
        self.conf = conf
        self.placement = placement_client or pl.PlacementClient(conf=conf)
        self._provider_tree = ProviderTree()
        self._refreshed_at = {}
        # One writer at a time per client keeps cache and Placement in step.
        self._lock = threading.RLock()

    @classmethod
    def for_endpoint(cls, endpoint, conf=None):
        """A client of a known, unauthenticated endpoint (all-in-one)."""
        return cls(pl.PlacementClient(pl.adapter_for_endpoint(endpoint)),
                   conf=conf)

    # -- cache ----------------------------------------------------------------
    def clear_provider_cache(self):
        with self._lock:
            self._provider_tree = ProviderTree()
            self._refreshed_at.clear()

    def invalidate_provider_tree(self, uuid):
        """Drop ``uuid``'s tree from the cache; the next call re-reads it
        from Placement (a compute start-up, where another process may have
        changed it while we were down)."""
        self._forget_tree(uuid)

    def _forget_tree(self, uuid):
        with self._lock:
            if not self._provider_tree.exists(uuid):
                return
            root = self._provider_tree.data(uuid).root_uuid
            for member in self._provider_tree.get_provider_uuids(root):
                self._refreshed_at.pop(member, None)
            self._provider_tree.remove(root)

    def _refresh_due(self, uuid):
        interval = self.conf.compute.resource_provider_association_refresh
        last = self._refreshed_at.get(uuid)
        if last is None:
            return True
        return bool(interval) and time.monotonic() - last >= interval

    def _refresh(self, context, uuid, force=False):
        """Re-read inventory, traits and aggregates of a cached provider."""
        if not force and not self._refresh_due(uuid):
            return
        inventories, gen = self.placement.get_inventories(context, uuid)
        traits, gen = self.placement.get_traits(context, uuid)
        aggregates, gen = self.placement.get_aggregates(context, uuid)
        tree = self._provider_tree
        tree.update_inventory(uuid, inventories)
        tree.update_traits(uuid, traits)
        tree.update_aggregates(uuid, aggregates, generation=gen)
        self._refreshed_at[uuid] = time.monotonic()

    def _populate(self, providers):
        """Add Placement's provider dicts to the cache, parents first."""
        pending = list(providers)
        while pending:
            progressed = False
            for rp in list(pending):
                parent = rp.get("parent_provider_uuid")
                if parent and not self._provider_tree.exists(parent):
                    continue
                if not self._provider_tree.exists(rp["uuid"]):
                    if parent:
                        self._provider_tree.new_child(
                            rp["name"], parent, uuid=rp["uuid"],
                            generation=rp["generation"])
                    else:
                        self._provider_tree.new_root(
                            rp["name"], rp["uuid"],
                            generation=rp["generation"])
                pending.remove(rp)
                progressed = True
            if not progressed:  # orphans: parent outside what we were given
                raise ValueError("provider tree has no parent for %s"
                                 % [rp["uuid"] for rp in pending])

    def _ensure_resource_provider(self, context, uuid, name=None,
                                  parent_provider_uuid=None):
        """Make sure ``uuid`` exists in Placement and in the cache."""
        with self._lock:
            if self._provider_tree.exists(uuid):
                for member in self._provider_tree.get_provider_uuids(
                        self._provider_tree.data(uuid).root_uuid):
                    self._refresh(context, member)
                return uuid
            existing = self.placement.get_providers_in_tree(context, uuid)
            if existing:
                self._populate(existing)
                for rp in existing:
                    self._refresh(context, rp["uuid"], force=True)
                return uuid
            created = self.placement.create_provider(
                context, uuid, name or uuid, parent_provider_uuid)
            self._populate([created])
            # A new provider has no inventory, traits or aggregates: nothing
            # to read back until the refresh interval passes.
            self._refreshed_at[uuid] = time.monotonic()
            return uuid

    def get_provider_tree_and_ensure_root(self, context, rp_uuid, name=None,
                                          parent_provider_uuid=None):
        """A copy of the cached tree, with ``rp_uuid`` created if missing.

        Callers edit the copy (the virt driver's ``update_provider_tree``)
        and hand it to ``update_from_provider_tree``.
        """
        with self._lock:
            self._ensure_resource_provider(context, rp_uuid, name,
                                           parent_provider_uuid)
            return self._provider_tree.copy(root=rp_uuid)

    def get_cached_provider(self, uuid):
        """Snapshot of what the cache holds for ``uuid`` (or None)."""
        with self._lock:
            if not self._provider_tree.exists(uuid):
                return None
            return self._provider_tree.data(uuid)

    # -- writes ---------------------------------------------------------------
    def update_from_provider_tree(self, context, new_tree):
        """Send Placement what differs between ``new_tree`` and the cache."""
        with self._lock:
            wanted = new_tree.get_provider_uuids()
            try:
                self._delete_vanished(context, new_tree, wanted)
                for uuid in wanted:
                    data = new_tree.data(uuid)
                    if not self._provider_tree.exists(uuid):
                        self._ensure_resource_provider(
                            context, uuid, data.name, data.parent_uuid)
                    self._sync_one(context, data)
            except Exception:
                for root in new_tree.roots():
                    self._forget_tree(root)
                raise

    def _delete_vanished(self, context, new_tree, wanted):
        for root in new_tree.roots():
            if not self._provider_tree.exists(root):
                continue
            cached = self._provider_tree.get_provider_uuids(root)
            for uuid in reversed(cached):   # children before parents
                if uuid not in wanted:
                    self.placement.delete_provider(context, uuid)
                    self._provider_tree.remove(uuid)
                    self._refreshed_at.pop(uuid, None)

    def _sync_one(self, context, data):
        cache = self._provider_tree
        if cache.has_inventory_changed(data.uuid, data.inventory):
            self.set_inventory_for_provider(context, data.uuid,
                                            data.inventory)
        if cache.have_traits_changed(data.uuid, data.traits):
            self.set_traits_for_provider(context, data.uuid, data.traits)
        if cache.have_aggregates_changed(data.uuid, data.aggregates):
            self.set_aggregates_for_provider(context, data.uuid,
                                             data.aggregates)

    def _with_generation_retry(self, context, uuid, write, still_needed):
        """Run ``write(generation)``; on a generation conflict re-read the
        provider and retry while ``still_needed()``."""
        for attempt in range(GENERATION_RETRIES):
            generation = self._provider_tree.data(uuid).generation
            try:
                return write(generation)
            except pl.GenerationConflict:
                LOG.info("Generation conflict on provider %s (attempt %d); "
                         "refreshing", uuid, attempt + 1)
                self._refresh(context, uuid, force=True)
                if not still_needed():
                    return None
        raise exception.ResourceProviderUpdateConflict(
            uuid=uuid, generation=self._provider_tree.data(uuid).generation,
            error="still conflicting after %d attempts" % GENERATION_RETRIES)

    def set_inventory_for_provider(self, context, uuid, inventory):
        """PUT the inventory unless the cache says Placement has it."""
        with self._lock:
            self._ensure_resource_provider(context, uuid)
            cache = self._provider_tree
            if not cache.has_inventory_changed(uuid, inventory):
                return

            def write(generation):
                new_gen = self.placement.put_inventories(
                    context, uuid, inventory, generation)
                cache.update_inventory(uuid, inventory, generation=new_gen)

            self._with_generation_retry(
                context, uuid, write,
                lambda: cache.has_inventory_changed(uuid, inventory))

    def set_traits_for_provider(self, context, uuid, traits):
        with self._lock:
            self._ensure_resource_provider(context, uuid)
            cache = self._provider_tree
            if not cache.have_traits_changed(uuid, traits):
                return
            self.placement.ensure_custom_traits(context, traits)

            def write(generation):
                new_gen = self.placement.put_traits(context, uuid, traits,
                                                    generation)
                cache.update_traits(uuid, traits, generation=new_gen)

            self._with_generation_retry(
                context, uuid, write,
                lambda: cache.have_traits_changed(uuid, traits))

    def set_aggregates_for_provider(self, context, uuid, aggregates):
        with self._lock:
            self._ensure_resource_provider(context, uuid)
            cache = self._provider_tree
            if not cache.have_aggregates_changed(uuid, aggregates):
                return

            def write(generation):
                new_gen = self.placement.put_aggregates(
                    context, uuid, aggregates, generation)
                cache.update_aggregates(uuid, aggregates, generation=new_gen)

            self._with_generation_retry(
                context, uuid, write,
                lambda: cache.have_aggregates_changed(uuid, aggregates))

    def delete_resource_provider(self, context, uuid, cascade=False):
        """Remove a provider; with ``cascade`` its consumers' allocations
        go first (as when a compute service is deleted)."""
        with self._lock:
            if cascade:
                for consumer in self.placement.get_provider_allocations(
                        context, uuid):
                    self.placement.delete_allocations(context, consumer)
            self.placement.delete_provider(context, uuid)
            if self._provider_tree.exists(uuid):
                self._provider_tree.remove(uuid)
            self._refreshed_at.pop(uuid, None)

    # -- scheduling and allocations ------------------------------------------
    def get_allocation_candidates(self, context, query):
        return self.placement.get_allocation_candidates(context, query)

    def get_allocs_for_consumer(self, context, consumer_uuid):
        return self.placement.get_allocations(context, consumer_uuid)

    def put_allocations(self, context, consumer_uuid, allocations,
                        project_id, user_id, consumer_generation):
        """Write a consumer's allocations; True on success, False when
        Placement refuses them (e.g. not enough capacity any more).

        A consumer-generation conflict means someone else changed this
        consumer's allocations: raise ``AllocationUpdateFailed`` rather than
        overwrite them.  A provider-side concurrent update is retried.
        """
        for _attempt in range(GENERATION_RETRIES):
            resp = self.placement.put_allocations(
                context, consumer_uuid, allocations, project_id, user_id,
                consumer_generation)
            if resp.status_code == 204:
                return True
            detail = pl.error_text(resp)
            if (resp.status_code == 409
                    and pl.error_code(resp) == "placement.concurrent_update"):
                if "consumer generation conflict" in detail.lower():
                    if getattr(resp, "keel_retried", False) and \
                            self._already_written(context, consumer_uuid,
                                                  allocations, project_id,
                                                  user_id):
                        # Our first attempt was applied, then its answer
                        # was lost with the connection: the repeat found
                        # the consumer generation it had moved on.
                        return True
                    raise exception.AllocationUpdateFailed(
                        consumer_uuid=consumer_uuid, error=detail)
                continue
            LOG.warning("Placement refused allocations for %s: %s %s",
                        consumer_uuid, resp.status_code, detail)
            return False
        return False

    def _already_written(self, context, consumer_uuid, allocations,
                         project_id, user_id):
        """Whether the consumer holds exactly ``allocations`` (and, when it
        holds any, for ``project_id`` / ``user_id``)."""
        current = self.placement.get_allocations(context, consumer_uuid)
        held = {rp: dict(alloc.get("resources") or {}) for rp, alloc in
                (current.get("allocations") or {}).items()}
        wanted = {rp: dict(alloc.get("resources") or {})
                  for rp, alloc in allocations.items()}
        if held != wanted:
            return False
        return not held or (current.get("project_id") == project_id
                            and current.get("user_id") == user_id)

    def claim_resources(self, context, consumer_uuid, alloc_request,
                        project_id, user_id, consumer_generation=None):
        """Claim one allocation request from ``get_allocation_candidates``."""
        return self.put_allocations(
            context, consumer_uuid, alloc_request["allocations"], project_id,
            user_id, consumer_generation)

    def delete_allocation_for_instance(self, context, consumer_uuid,
                                       force=False):
        """Drop a consumer's allocations; False if it had none.

        Without ``force`` the delete is an empty PUT with the consumer
        generation read just before, so a concurrent change is not lost.
        """
        if force:
            return self.placement.delete_allocations(context, consumer_uuid)
        current = self.placement.get_allocations(context, consumer_uuid)
        if not current.get("allocations"):
            return False
        ok = self.put_allocations(
            context, consumer_uuid, {}, current.get("project_id"),
            current.get("user_id"), current.get("consumer_generation"))
        return ok

    def get_usages_counts_for_quota(self, context, project_id, user_id=None):
        return self.placement.get_usages(context, project_id, user_id)

    def get_provider_usages(self, context, uuid):
        return self.placement.get_provider_usages(context, uuid)
