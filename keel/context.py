"""Request context: who is asking, and which cell (database + transport) is targeted.

The context travels on every RPC message as ``_context_*`` keys (oslo.messaging's
context serializer calls ``to_dict``), with the same keys Nova sends.
"""
import contextlib
import copy
import datetime

from oslo_context import context as oslo_context
from oslo_db.sqlalchemy import enginefacade
from oslo_utils import timeutils


def _parse_timestamp(text):
    """A context's timestamp as a naive datetime. Every RPC message
    carries one (``%Y-%m-%dT%H:%M:%S.%f``, what to_dict writes): the
    standard library's ISO reader takes it in a fraction of iso8601's time;
    anything it refuses goes to the lenient parser as before."""
    try:
        value = datetime.datetime.fromisoformat(text)
    except ValueError:
        value = timeutils.parse_isotime(text)
    return value.replace(tzinfo=None)


@enginefacade.transaction_context_provider
class RequestContext(oslo_context.RequestContext):
    """A security and cell-targeting context for one request or task."""

    def __init__(self, user_id=None, project_id=None, is_admin=None,
                 read_deleted="no", remote_address=None, timestamp=None,
                 quota_class=None, service_catalog=None,
                 user_auth_plugin=None, **kwargs):
        kwargs.setdefault("user_id", user_id)
        kwargs.setdefault("project_id", project_id)
        for legacy in ("user", "tenant"):  # older senders still use these
            kwargs.pop(legacy, None)
        super().__init__(is_admin=bool(is_admin), **kwargs)
        self.read_deleted = read_deleted
        self.remote_address = remote_address
        if isinstance(timestamp, str):
            timestamp = _parse_timestamp(timestamp)
        self.timestamp = timestamp or timeutils.utcnow()
        self.quota_class = quota_class
        self.service_catalog = service_catalog or []
        self.user_auth_plugin = user_auth_plugin
        # Cell targeting (set by target_cell): an enginefacade transaction
        # context for the cell database and a transport for the cell's broker.
        self.db_connection = None
        self.mq_connection = None
        self.cell_uuid = None

    def _get_read_deleted(self):
        return self._read_deleted

    def _set_read_deleted(self, value):
        if value not in ("no", "yes", "only"):
            raise ValueError(f"read_deleted can only be one of 'no', "
                             f"'yes' or 'only', not {value!r}")
        self._read_deleted = value

    read_deleted = property(_get_read_deleted, _set_read_deleted)

    def to_dict(self):
        values = super().to_dict()
        values.update({
            "user_id": self.user_id,
            "project_id": self.project_id,
            "read_deleted": self.read_deleted,
            "remote_address": self.remote_address,
            "timestamp": self.timestamp.strftime("%Y-%m-%dT%H:%M:%S.%f"),
            "quota_class": self.quota_class,
            "service_catalog": self.service_catalog,
            "user_name": self.user_name,
            "project_name": self.project_name,
        })
        return values

    @classmethod
    def from_dict(cls, values):
        return super().from_dict(
            values,
            user_id=values.get("user_id"),
            project_id=values.get("project_id"),
            read_deleted=values.get("read_deleted", "no"),
            remote_address=values.get("remote_address"),
            timestamp=values.get("timestamp"),
            quota_class=values.get("quota_class"),
            service_catalog=values.get("service_catalog"),
        )

    def elevated(self, read_deleted=None):
        """An admin copy of this context (for internal lookups)."""
        ctx = copy.copy(self)
        ctx.roles = list(self.roles)
        ctx.is_admin = True
        if "admin" not in ctx.roles:
            ctx.roles.append("admin")
        if read_deleted is not None:
            ctx.read_deleted = read_deleted
        return ctx

    def __copy__(self):
        # enginefacade keeps per-transaction state on the context; a copy
        # must not share it with the original.
        new = self.__class__.__new__(self.__class__)
        new.__dict__.update({k: v for k, v in self.__dict__.items()
                             if k != "_enginefacade_context"})
        return new


def get_admin_context(read_deleted="no"):
    """A context for services acting on their own behalf."""
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          roles=["admin"], read_deleted=read_deleted,
                          overwrite=False)


def get_context():
    """A context that is neither admin nor anyone (for tests and tools)."""
    return RequestContext(user_id=None, project_id=None, is_admin=False,
                          overwrite=False)


def set_target_cell(context, cell_mapping):
    """Point ``context`` at ``cell_mapping``'s database and message queue."""
    # Imported here: context is the lowest layer, db and rpc import it.
    from keel.db import session as db_session

    if cell_mapping is None:
        context.db_connection = None
        context.mq_connection = None
        context.cell_uuid = None
        return
    context.db_connection = db_session.cell_context_manager(
        cell_mapping.database_connection)
    url = cell_mapping.transport_url
    if url and not url.startswith("none:"):
        from keel.rpc import transport as rpc_transport
        context.mq_connection = rpc_transport.cell_transport(url)
    else:
        context.mq_connection = None
    context.cell_uuid = cell_mapping.uuid


@contextlib.contextmanager
def target_cell(context, cell_mapping):
    """Yield a copy of ``context`` targeted at ``cell_mapping``."""
    cctxt = copy.copy(context)
    set_target_cell(cctxt, cell_mapping)
    yield cctxt
