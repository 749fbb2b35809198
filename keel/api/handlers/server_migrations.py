"""Live migration on the API: the os-migrateLive server action (block
migration "auto" from 2.25, force 2.30-2.67), and for live migrations in
progress, under /servers/{server_id}/migrations: list and show (2.23;
uuid 2.59, owners 2.80), force_complete (2.22) and abort, DELETE (2.24)."""
import functools

import webob.exc
from oslo_utils import strutils

from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import server_actions
from keel.api.handlers import server_power
from keel.api.schemas import server_migrations as schema
from keel.api.views.services import isotime
from keel.compute_api import live_migration as lm_api
from keel import exception
from keel import policy
from keel.policies import server_migrations as names


def _errors(action):
    def decorator(func):
        @functools.wraps(func)
        def wrapper(req, **kwargs):
            server_id = kwargs.get("server_id") or kwargs.get("id")
            try:
                return func(req, **kwargs)
            except (exception.ComputeHostNotFound,
                    exception.InvalidMigrationState,
                    exception.MigrationPreCheckError,
                    exception.UnableToMigrateToSelf,
                    exception.NoValidHost) as exc:
                raise webob.exc.HTTPBadRequest(
                    explanation=exc.format_message())
            except exception.MigrationNotFound as exc:
                raise webob.exc.HTTPNotFound(
                    explanation=exc.format_message())
            except (exception.InstanceIsLocked,
                    exception.UnexpectedTaskStateError,
                    exception.InstanceNotReady) as exc:
                raise webob.exc.HTTPConflict(
                    explanation=exc.format_message())
            except exception.InstanceInvalidState as exc:
                raise server_power.conflict(exc, action, server_id)
        return wrapper
    return decorator


def _authorize(req, rule, instance, do_raise=True):
    return policy.authorize(req.context, rule,
                            {"project_id": instance.project_id,
                             "user_id": instance.user_id},
                            do_raise=do_raise)


def _bool(value):
    return strutils.bool_from_string(value, strict=True)


@server_actions.action("os-migrateLive")
@wsgi.expose(status=202, name="servers.migrate_live")
@validation.schema(schema.migrate_live, "2.1", "2.24")
@validation.schema(schema.migrate_live_v2_25, "2.25", "2.29")
@validation.schema(schema.migrate_live_v2_30, "2.30", "2.67")
@validation.schema(schema.migrate_live_v2_68, "2.68")
@_errors("os-migrateLive")
def migrate_live(req, id):
    body = req.json_body["os-migrateLive"]
    host = body["host"]
    force = None
    if req.version_matches("2.30", "2.67"):
        force = _bool(body.get("force", False))
        if force and not host:
            raise webob.exc.HTTPBadRequest(
                explanation="Can't force to a non-provided destination")
    if req.version_matches("2.25"):
        block_migration = None if body["block_migration"] == "auto" \
            else _bool(body["block_migration"])
        disk_over_commit = None
    else:
        block_migration = _bool(body["block_migration"])
        disk_over_commit = _bool(body["disk_over_commit"])
    instance = server_power.located(req, id, names.MIGRATE_LIVE,
                                    in_cell=True)
    if host:
        # Naming the destination is a further, administrator's right.
        _authorize(req, names.MIGRATE_LIVE_HOST, instance)
    lm_api.live_migrate(req.context, instance, block_migration,
                        disk_over_commit, host, force=force,
                        async_=req.version_matches("2.25"))
    return None


def _migration_id(value):
    try:
        return int(value)
    except ValueError:
        raise webob.exc.HTTPNotFound(
            explanation=f"Migration {value} could not be found.")


@wsgi.expose(min_version="2.22", status=202,
             name="server_migrations.force_complete")
@validation.schema(schema.force_complete)
@_errors("force_complete")
def force_complete(req, server_id, id):
    migration_id = id
    instance = server_power.located(req, server_id,
                                    names.MIGRATIONS % "force_complete",
                                    in_cell=True)
    lm_api.force_complete(req.context, instance,
                          _migration_id(migration_id))
    return None


@wsgi.expose(min_version="2.24", status=202,
             name="server_migrations.delete")
@_errors("abort live migration")
def delete(req, server_id, id):
    migration_id = id
    instance = server_power.located(req, server_id,
                                    names.MIGRATIONS % "delete",
                                    in_cell=True)
    try:
        lm_api.abort(req.context, instance, _migration_id(migration_id))
    except exception.MigrationNotFoundForInstance as exc:
        raise webob.exc.HTTPNotFound(explanation=exc.format_message())
    return None


def _view(req, mig, show_hosts=True):
    """Nova's server migration view (progress counters included); hosts
    are null for those who may not see them."""
    out = {"created_at": isotime(mig.created_at),
           "updated_at": isotime(mig.updated_at), "id": mig.id,
           "server_uuid": mig.instance_uuid, "status": mig.status}
    for key in ("dest_compute", "dest_host", "dest_node", "source_compute",
                "source_node"):
        out[key] = getattr(mig, key) if show_hosts else None
    for kind in ("memory", "disk"):
        for part in ("total", "processed", "remaining"):
            name = f"{kind}_{part}"
            out[f"{name}_bytes"] = getattr(mig, name) \
                if mig.obj_attr_is_set(name) else None
    if req.version_matches("2.59"):
        out["uuid"] = mig.uuid
    if req.version_matches("2.80"):
        out["user_id"] = mig.user_id
        out["project_id"] = mig.project_id
    return out


@wsgi.expose(min_version="2.23", name="server_migrations.index")
@validation.query_schema(schema.index_query, "2.23", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
def index(req, server_id):
    instance = server_power.located(req, server_id,
                                    names.MIGRATIONS % "index", in_cell=True)
    hosts = _authorize(req, names.MIGRATIONS % "index:host", instance,
                       do_raise=False)
    return {"migrations": [_view(req, m, hosts) for m in
                           lm_api.in_progress(instance)]}


@wsgi.expose(min_version="2.23", name="server_migrations.show")
@validation.query_schema(schema.show_query, "2.23", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def show(req, server_id, id):
    migration_id = id
    instance = server_power.located(req, server_id,
                                    names.MIGRATIONS % "show", in_cell=True)
    wanted = _migration_id(migration_id)
    found = [m for m in lm_api.in_progress(instance) if m.id == wanted]
    if not found:
        raise webob.exc.HTTPNotFound(
            explanation=f"In-progress live migration {migration_id} is not "
                        f"found for server {server_id}.")
    return {"migration": _view(req, found[0])}


def route_entries():
    base = "/servers/{server_id}/migrations"
    return {base: {"GET": index},
            base + "/{id}": {"GET": show, "DELETE": delete},
            # A body-keyed action, as Nova's router dispatches it.
            base + "/{id}/action": {"POST": wsgi.ActionDispatcher(
                {"force_complete": force_complete})}}
