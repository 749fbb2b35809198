"""Placement's attribute caches shared between the requests of the one
embedded Placement process (part of keel.allinone.placement_tuning).

Upstream Placement gives every request context its own resource class,
trait and consumer type caches (``placement.context.RequestContext``), so a
request that names a resource class or a trait first reads the whole table:
a boot's GET /allocation_candidates read the trait table (hundreds of
os-traits rows) and the resource class table, and its PUT /allocations the
resource class table again -- each time the same rows.

Here each request still gets its own cache object, filled from the last
complete table read of this process instead of starting empty. Why that
answers as a fresh read would:

* a name missing from the cache makes the request's cache read its table
  again, within the request's own transaction, exactly as upstream (so a
  row created since -- another request's ``PUT /traits/CUSTOM_X``, a
  consumer type made by an allocation write -- is found);
* a table read is published for later requests only if no cache was
  cleared while it ran. Placement clears a cache after every change to its
  table (trait and resource class create/destroy/rename, consumer type
  create), after the change's own transaction committed (those writers are
  not nested in a request-wide transaction); the clear also drops what was
  published. So a deleted or renamed row is never served from an earlier
  read: a read that began before the commit is not published, one that
  begins after sees the change.

This relies on every change to those tables going through this process's
Placement objects -- true of the all-in-one's private database (and of
``python -m keel.embedded.placement --tuned``, one process too). A second
Placement process over the same database would need upstream's
per-request caches.
"""
import threading


class _Store:
    """The last published table read of each cache class."""

    def __init__(self):
        self.lock = threading.Lock()
        self.generation = 0
        self.tables = {}       # cache base class -> (id, str, all) dicts

    def invalidate(self):
        with self.lock:
            self.generation += 1
            self.tables = {}

    def publish(self, base, generation, dicts):
        with self.lock:
            if generation == self.generation:
                self.tables[base] = dicts


def _shared_class(base, store):
    class Shared(base):
        def __init__(self, ctx):
            self._keel_started = False
            super().__init__(ctx)          # calls clear(): this object only
            self._keel_started = True
            found = store.tables.get(base)
            if found is not None:
                # Published dicts are never changed in place (a read or a
                # clear assigns new ones), so requests can share them.
                self._id_cache, self._str_cache, self._all_cache = found

        def clear(self):
            super().clear()
            if self._keel_started:
                store.invalidate()

        def _refresh_from_db(self, ctx):
            generation = store.generation
            super()._refresh_from_db(ctx)
            store.publish(base, generation, (
                self._id_cache, self._str_cache, self._all_cache))

    Shared.__name__ = Shared.__qualname__ = "Shared" + base.__name__
    return Shared


def install():
    """Make ``placement.context`` build the shared caches; returns a
    function that puts upstream's back (tests)."""
    import types

    from placement import attribute_cache
    from placement import context

    current = context.attribute_cache
    if getattr(current, "_keel_store", None) is not None:
        return lambda: None
    store = _Store()
    module = types.ModuleType(attribute_cache.__name__,
                              attribute_cache.__doc__)
    module.__dict__.update(attribute_cache.__dict__)
    for name in ("ConsumerTypeCache", "ResourceClassCache", "TraitCache"):
        setattr(module, name,
                _shared_class(getattr(attribute_cache, name), store))
    module._keel_store = store
    context.attribute_cache = module

    def restore():
        context.attribute_cache = current
    return restore
