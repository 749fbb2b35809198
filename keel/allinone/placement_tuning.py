"""The embedded Placement, fitted to the all-in-one's single process (and
applied as well by ``python -m keel.embedded.placement``, the Placement
process of the distributed deployments).

Placement is the real upstream service; what changes here is only how it
runs, not what it answers:

* its SQLite database gets pooled connections in WAL mode, as keel's own
  (oslo.db gives file-based SQLite a NullPool: every transaction reopened
  the file and replayed the pragmas);
* ``jsonschema.validate`` checks the *schema* against its meta-schema before
  validating the request (``check_schema``), on every request: ~15% of
  Placement's time in a boot storm went to re-proving that its constant
  schemas are valid. Each schema is checked once here; requests are
  validated exactly as before (same validator class, same best error);
* the hottest queries of a boot (GET /allocation_candidates, PUT
  /allocations) each begin with ``sa.alias(table, name=...)``: a new alias
  builds a proxy Column for every column of the table when the query first
  touches ``alias.c`` (~15% of Placement's time). In the functions listed
  in ``_ALIAS_SITES`` -- each builds one self-contained statement from its
  own aliases and runs it -- the alias objects are built once and reused:
  the same SQL text, the same bound parameters;
* the resource class, trait and consumer type caches that upstream fills
  again for every request (a full read of each table a request names) are
  shared by the requests of the process, with Placement's own invalidation
  (``keel.allinone.placement_caches`` says why the answers stay the same);
* GET /allocation_candidates serialises each provider summary's trait set
  through ``jsonutils.to_primitive``, a recursive call per trait name (a
  thousand calls per answer with 50 hosts); sets become lists directly
  here, in the same order, and anything else still goes to to_primitive:
  the same JSON text.
"""
import sys
import threading
import types

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def apply():
    from keel.allinone import placement_caches
    _check_schemas_once()
    _cache_aliases()
    placement_caches.install()
    _lists_from_sets()
    _pool_database()


def _json_default(value, _sets=(set, frozenset)):
    # to_primitive turns a set into list(map(to_primitive, value)); the
    # encoder calls this again for any element it cannot encode itself.
    if type(value) in _sets:
        return list(value)
    from oslo_serialization import jsonutils
    return jsonutils.to_primitive(value)


def _lists_from_sets():
    """``jsonutils`` of Placement's allocation candidate handler with
    :func:`_json_default` as ``dumps``'s default; returns an undo."""
    from placement.handlers import allocation_candidate as handler
    jsonutils = handler.jsonutils
    if getattr(jsonutils, "_keel_real_jsonutils", None) is not None:
        return lambda: None

    def dumps(obj, default=_json_default, **kwargs):
        return jsonutils.dumps(obj, default=default, **kwargs)

    module = types.ModuleType(jsonutils.__name__, jsonutils.__doc__)
    module.__dict__.update(jsonutils.__dict__)
    module.dumps = dumps
    module._keel_real_jsonutils = jsonutils
    handler.jsonutils = module

    def restore():
        handler.jsonutils = jsonutils
    return restore


def _pool_database():
    from placement import db_api
    from keel.db import session
    try:
        engine = db_api.placement_context_manager.writer.get_engine()
    except Exception:  # noqa: BLE001 - Placement not started: nothing to do
        LOG.debug("Placement's engine is not started", exc_info=True)
        return
    session.pool_sqlite_connections(engine)


class _SchemaCheckedOnce:
    """Stands for the ``jsonschema`` module inside ``placement.util``."""

    def __init__(self, jsonschema):
        self._jsonschema = jsonschema
        self._lock = threading.Lock()
        # id(schema) -> schema: keeping the schema alive keeps its id its own.
        self._checked = {}

    def __getattr__(self, name):
        return getattr(self._jsonschema, name)

    def validate(self, instance, schema, cls=None, *args, **kwargs):
        js = self._jsonschema
        if cls is None:
            cls = js.validators.validator_for(schema)
        if self._checked.get(id(schema)) is not schema:
            cls.check_schema(schema)
            with self._lock:
                if len(self._checked) < 1024:
                    self._checked[id(schema)] = schema
        error = js.exceptions.best_match(
            cls(schema, *args, **kwargs).iter_errors(instance))
        if error is not None:
            raise error


def _check_schemas_once():
    from placement import util
    if not isinstance(util.jsonschema, _SchemaCheckedOnce):
        util.jsonschema = _SchemaCheckedOnce(util.jsonschema)


# Reviewed call sites (module -> function names): each builds one statement
# whose aliases have distinct names and do not leave the function, so
# sharing them between calls (and threads: the column collection is built
# before an alias is shared) cannot change which FROM a column refers to.
# Elsewhere sa.alias() stays as it is: a subquery reusing an alias object
# of its enclosing query would be correlated to it instead.
_ALIAS_SITES = {
    "placement.objects.resource_provider": {"_get_provider_by_uuid"},
    "placement.objects.research_context": {
        "get_providers_with_resource", "get_sharing_providers",
        "get_usages_by_provider_trees", "_get_roots_with_traits"},
    "placement.objects.trait": {"get_traits_by_provider_tree"},
    "placement.objects.allocation_candidate": {
        "_provider_ids_from_root_ids"},
    "placement.objects.consumer": {"_get_consumer_by_uuid"},
    "placement.objects.project": {"_get_project_by_external_id"},
    "placement.objects.user": {"_get_user_by_external_id"},
    "placement.objects.allocation": {
        "_get_allocations_by_provider_id",
        "_get_allocations_by_consumer_uuid"},
    "placement.objects.inventory": {"_get_inventory_by_provider_id"},
}


def _alias_module(sa, functions):
    """A copy of the ``sqlalchemy`` module namespace whose ``alias`` keeps
    the aliases made by ``functions`` (plain module attribute access for
    everything else)."""
    real_alias = sa.alias
    cache = {}
    lock = threading.Lock()

    def alias(selectable, name=None, flat=False):
        if sys._getframe(1).f_code.co_name not in functions:
            return real_alias(selectable, name=name, flat=flat)
        key = (selectable, name, flat)
        found = cache.get(key)
        if found is None:
            with lock:
                found = cache.get(key)
                if found is None:
                    found = real_alias(selectable, name=name, flat=flat)
                    found.c    # build the column collection before sharing
                    cache[key] = found
        return found

    module = types.ModuleType(sa.__name__, sa.__doc__)
    module.__dict__.update(sa.__dict__)
    module.alias = alias
    module._keel_real_sqlalchemy = sa
    return module


def _cache_aliases():
    """Install the alias cache in the modules of ``_ALIAS_SITES``; returns
    a function that puts the real ``sqlalchemy`` back (tests)."""
    import importlib
    undo = []
    for name, functions in _ALIAS_SITES.items():
        module = importlib.import_module(name)
        sa = module.sa
        if getattr(sa, "_keel_real_sqlalchemy", None) is not None:
            continue
        module.sa = _alias_module(sa, frozenset(functions))
        undo.append((module, sa))

    def restore():
        for module, sa in undo:
            module.sa = sa
    return restore
