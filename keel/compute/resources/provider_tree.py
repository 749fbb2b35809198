"""An in-memory copy of a host's resource-provider tree.

The report client keeps one as its cache of what Placement holds (names,
generations, inventories, traits, aggregates); the resource tracker hands a
deep copy to the virt driver's ``update_provider_tree`` and the client then
sends Placement only the differences.  Comparing against the cache is what
lets a periodic update with nothing new cost no write at all.
"""
import threading

# Inventory fields Placement fills in when a client leaves them out; the
# comparison applies them so an omitted default is not seen as a change.
_INVENTORY_DEFAULTS = {
    "reserved": 0,
    "min_unit": 1,
    "max_unit": None,   # Placement's default is the total
    "step_size": 1,
    "allocation_ratio": 1.0,
}


def normalize_inventory(inventory):
    """``{rc: {total, reserved, ...}}`` with Placement's defaults filled in."""
    out = {}
    for rc, inv in (inventory or {}).items():
        full = dict(inv)
        for key, default in _INVENTORY_DEFAULTS.items():
            if full.get(key) is None:
                full[key] = full["total"] if key == "max_unit" else default
        full["allocation_ratio"] = float(full["allocation_ratio"])
        out[rc] = full
    return out


class ProviderData(object):
    """One provider as last seen in (or meant for) Placement."""

    __slots__ = ("uuid", "name", "parent_uuid", "root_uuid", "generation",
                 "inventory", "traits", "aggregates")

    def __init__(self, uuid, name, parent_uuid=None, root_uuid=None,
                 generation=None):
        self.uuid = uuid
        self.name = name
        self.parent_uuid = parent_uuid
        self.root_uuid = root_uuid or uuid
        self.generation = generation
        self.inventory = {}
        self.traits = set()
        self.aggregates = set()

    def __repr__(self):
        return "<ProviderData %s %s gen=%s>" % (self.name, self.uuid,
                                                self.generation)

    def copy(self):
        """A deep copy (inventories hold plain values): what copy.deepcopy
        would give, for a fraction of its cost on every periodic refresh."""
        dup = ProviderData(self.uuid, self.name, self.parent_uuid,
                           self.root_uuid, self.generation)
        dup.inventory = {rc: dict(inv) for rc, inv in self.inventory.items()}
        dup.traits = set(self.traits)
        dup.aggregates = set(self.aggregates)
        return dup


class ProviderTree(object):
    """Providers by uuid (and name), safe to share between threads."""

    def __init__(self):
        self._lock = threading.RLock()
        self._by_uuid = {}
        self._uuid_by_name = {}   # one process may cache hundreds of hosts

    # -- structure ---------------------------------------------------------
    def new_root(self, name, uuid, generation=None):
        return self._add(ProviderData(uuid, name, generation=generation))

    def new_child(self, name, parent, uuid=None, generation=None):
        """Add a child of ``parent`` (a name or uuid); returns its uuid."""
        import uuid as uuid_lib
        with self._lock:
            par = self._find(parent)
            child = ProviderData(uuid or str(uuid_lib.uuid4()), name,
                                 parent_uuid=par.uuid,
                                 root_uuid=par.root_uuid,
                                 generation=generation)
            return self._add(child)

    def _add(self, data):
        with self._lock:
            if data.uuid in self._by_uuid:
                raise ValueError("provider %s already in the tree" % data.uuid)
            if self._by_name(data.name) is not None:
                raise ValueError("provider named %r already in the tree"
                                 % data.name)
            self._by_uuid[data.uuid] = data
            self._uuid_by_name[data.name] = data.uuid
            return data.uuid

    def remove(self, name_or_uuid):
        """Remove a provider and its descendants."""
        with self._lock:
            data = self._find(name_or_uuid)
            for uuid in self._descendants(data.uuid) + [data.uuid]:
                gone = self._by_uuid.pop(uuid, None)
                if gone is not None:
                    self._uuid_by_name.pop(gone.name, None)

    def _descendants(self, uuid):
        found = []
        for d in list(self._by_uuid.values()):
            if d.parent_uuid == uuid:
                found.append(d.uuid)
                found.extend(self._descendants(d.uuid))
        return found

    def _by_name(self, name):
        uuid = self._uuid_by_name.get(name)
        return self._by_uuid.get(uuid) if uuid else None

    def _find(self, name_or_uuid):
        data = self._by_uuid.get(name_or_uuid) or self._by_name(name_or_uuid)
        if data is None:
            raise ValueError("no provider %r in the tree" % (name_or_uuid,))
        return data

    def exists(self, name_or_uuid):
        with self._lock:
            return (name_or_uuid in self._by_uuid
                    or self._by_name(name_or_uuid) is not None)

    def data(self, name_or_uuid):
        """A snapshot copy of one provider's data."""
        with self._lock:
            return self._find(name_or_uuid).copy()

    def get_provider_uuids(self, name_or_uuid=None):
        """Uuids of a provider and its descendants (all, if None), parents
        first -- the order Placement needs for creating them."""
        with self._lock:
            if name_or_uuid is None:
                roots = [d.uuid for d in self._by_uuid.values()
                         if d.parent_uuid is None]
            else:
                roots = [self._find(name_or_uuid).uuid]
            out = []
            for root in roots:
                out.append(root)
                out.extend(self._ordered_descendants(root))
            return out

    def _ordered_descendants(self, uuid):
        out = []
        for d in self._by_uuid.values():
            if d.parent_uuid == uuid:
                out.append(d.uuid)
                out.extend(self._ordered_descendants(d.uuid))
        return out

    def roots(self):
        with self._lock:
            return [d.uuid for d in self._by_uuid.values()
                    if d.parent_uuid is None]

    def copy(self, root=None):
        """A deep copy: of everything, or only of ``root``'s tree (what one
        host edits, without copying every other host's providers)."""
        with self._lock:
            if root is None:
                uuids = list(self._by_uuid)
            else:
                uuids = self.get_provider_uuids(self._find(root).root_uuid)
            dup = ProviderTree()
            dup._by_uuid = {u: self._by_uuid[u].copy() for u in uuids}
            dup._uuid_by_name = {d.name: u for u, d in dup._by_uuid.items()}
            return dup

    # -- generations ---------------------------------------------------------
    def set_generation(self, name_or_uuid, generation):
        with self._lock:
            self._find(name_or_uuid).generation = generation

    # -- inventory -----------------------------------------------------------
    def has_inventory_changed(self, name_or_uuid, inventory):
        with self._lock:
            current = self._find(name_or_uuid).inventory
            return normalize_inventory(current) != normalize_inventory(
                inventory)

    def update_inventory(self, name_or_uuid, inventory, generation=None):
        """Replace the inventory; True if it differs from what was held."""
        with self._lock:
            data = self._find(name_or_uuid)
            if generation is not None:
                data.generation = generation
            changed = self.has_inventory_changed(data.uuid, inventory)
            data.inventory = normalize_inventory(inventory)
            return changed

    # -- traits --------------------------------------------------------------
    def has_traits(self, name_or_uuid, traits):
        with self._lock:
            return set(traits) <= self._find(name_or_uuid).traits

    def have_traits_changed(self, name_or_uuid, traits):
        with self._lock:
            return set(traits) != self._find(name_or_uuid).traits

    def update_traits(self, name_or_uuid, traits, generation=None):
        with self._lock:
            data = self._find(name_or_uuid)
            changed = set(traits) != data.traits
            data.traits = set(traits)
            if generation is not None:
                data.generation = generation
            return changed

    def add_traits(self, name_or_uuid, *traits):
        with self._lock:
            self._find(name_or_uuid).traits.update(traits)

    def remove_traits(self, name_or_uuid, *traits):
        with self._lock:
            self._find(name_or_uuid).traits.difference_update(traits)

    # -- aggregates ----------------------------------------------------------
    def have_aggregates_changed(self, name_or_uuid, aggregates):
        with self._lock:
            return set(aggregates) != self._find(name_or_uuid).aggregates

    def update_aggregates(self, name_or_uuid, aggregates, generation=None):
        with self._lock:
            data = self._find(name_or_uuid)
            changed = set(aggregates) != data.aggregates
            data.aggregates = set(aggregates)
            if generation is not None:
                data.generation = generation
            return changed

    def add_aggregates(self, name_or_uuid, *aggregates):
        with self._lock:
            self._find(name_or_uuid).aggregates.update(aggregates)
