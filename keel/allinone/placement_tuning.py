"""The embedded Placement, fitted to the all-in-one's single process.

Placement is the real upstream service; what changes here is only how it
runs, not what it answers:

* its SQLite database gets pooled connections in WAL mode, as keel's own
  (oslo.db gives file-based SQLite a NullPool: every transaction reopened
  the file and replayed the pragmas);
* ``jsonschema.validate`` checks the *schema* against its meta-schema before
  validating the request (``check_schema``), on every request: ~15% of
  Placement's time in a boot storm went to re-proving that its constant
  schemas are valid. Each schema is checked once here; requests are
  validated exactly as before (same validator class, same best error).
"""
import threading

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def apply():
    _check_schemas_once()
    _pool_database()


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
