"""Objects: InstanceAction(List), InstanceActionEvent(List) — the server
action log: one action per request on an instance, events for its steps."""
import functools
import traceback as tb_mod

from oslo_utils import timeutils
import sqlalchemy as sa

from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

RESULT_SUCCESS = "Success"
RESULT_ERROR = "Error"


def _find_action(session, instance_uuid, request_id):
    act = models.InstanceAction
    return session.execute(
        sa.select(act).where(act.instance_uuid == instance_uuid,
                             act.request_id == request_id,
                             act.deleted == 0)
        .order_by(act.id.desc())).scalars().first()


@functools.lru_cache(maxsize=None)
def _event_statements():
    """Core statements of event_start / event_finish_with_failure, built
    once: these run for every step of every server operation."""
    act = models.InstanceAction.__table__
    ev = models.InstanceActionEvent.__table__
    newest = (sa.select(act.c.id)
              .where(act.c.instance_uuid == sa.bindparam("w_uuid"),
                     act.c.request_id == sa.bindparam("w_request"),
                     act.c.deleted == 0)
              .order_by(act.c.id.desc()).limit(1))
    newest_id = (sa.select(sa.func.max(act.c.id))
                 .where(act.c.instance_uuid == sa.bindparam("w_uuid"),
                        act.c.request_id == sa.bindparam("w_request"),
                        act.c.deleted == 0)
                 .scalar_subquery())
    # The request's newest action and its newest event of that name.
    action_and_event = (
        sa.select(act.c.id.label("w_action_id"), ev)
        .select_from(act.join(ev, ev.c.action_id == act.c.id))
        .where(act.c.id == newest_id,
               ev.c.event == sa.bindparam("w_event"), ev.c.deleted == 0)
        .order_by(ev.c.id.desc()).limit(1))
    touch = (sa.update(act).where(act.c.id == sa.bindparam("w_id"))
             .values({act.c.updated_at: sa.bindparam("v_now")}))
    touch_error = touch.values({act.c.message: RESULT_ERROR})
    return {"newest": newest, "action_and_event": action_and_event,
            "touch": touch, "touch_error": touch_error}


@functools.lru_cache(maxsize=8)
def _finish_statement(names):
    ev = models.InstanceActionEvent.__table__
    return (sa.update(ev).where(ev.c.id == sa.bindparam("w_id"))
            .values({ev.c[name]: sa.bindparam("v_" + name)
                     for name in names}))


@base.KeelObjectRegistry.register
class InstanceAction(base.KeelPersistentObject, base.KeelObject,
                     base.KeelObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'action': fields.StringField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'id': fields.IntegerField(),
        'instance_uuid': fields.UUIDField(nullable=True),
        'message': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'request_id': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'user_id': fields.StringField(nullable=True),
    }

    _from_db_object = staticmethod(h.simple_from_db)

    @staticmethod
    def pack_action_start(context, instance_uuid, action_name):
        return {"request_id": context.request_id,
                "user_id": context.user_id,
                "project_id": context.project_id,
                "instance_uuid": instance_uuid,
                "action": action_name,
                "start_time": context.timestamp,
                "updated_at": context.timestamp}

    @base.remotable_classmethod
    def get_by_request_id(cls, context, instance_uuid, request_id):
        with h.cell_reader(context) as s:
            row = _find_action(s, instance_uuid, request_id)
            if row is None:
                return None
            return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def action_start(cls, context, instance_uuid, action_name,
                     want_result=True):
        values = cls.pack_action_start(context, instance_uuid, action_name)
        with h.cell_core_writer(context) as s:
            row = h.insert_row(s, models.InstanceAction, values)
            if want_result:
                return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def action_finish(cls, context, instance_uuid, want_result=True):
        with h.cell_writer(context) as s:
            row = _find_action(s, instance_uuid, context.request_id)
            if row is None:
                raise exception.InstanceActionNotFound(
                    request_id=context.request_id,
                    instance_uuid=instance_uuid)
            row.finish_time = timeutils.utcnow()
            s.flush()
            if want_result:
                return cls._from_db_object(context, cls(), row)

    @base.remotable
    def finish(self):
        with h.cell_writer(self._context) as s:
            row = s.get(models.InstanceAction, self.id)
            row.finish_time = timeutils.utcnow()
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        values = h.changes_for_db(self, models.InstanceAction)
        with h.cell_writer(self._context) as s:
            row = h.insert_row(s, models.InstanceAction, values)
            self._from_db_object(self._context, self, row)


@base.KeelObjectRegistry.register
class InstanceActionList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceAction'),
    }

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid, limit=None,
                             marker=None, filters=None):
        """Newest first; ``marker`` is a request_id, ``filters`` may hold
        changes-since / changes-before on updated_at."""
        act = models.InstanceAction
        filters = filters or {}
        with h.cell_reader(context) as s:
            stmt = sa.select(act).where(act.instance_uuid == instance_uuid)
            stmt = h.filter_deleted(stmt, act, context)
            if "changes-since" in filters:
                stmt = stmt.where(act.updated_at >= filters["changes-since"])
            if "changes-before" in filters:
                stmt = stmt.where(act.updated_at <= filters["changes-before"])
            marker_row = None
            if marker is not None:
                marker_row = _find_action(s, instance_uuid, marker)
                if marker_row is None:
                    raise exception.MarkerNotFound(marker=marker)
            stmt = h.paginate(stmt, act, ["created_at", "id"],
                              ["desc", "desc"], limit=limit,
                              marker_row=marker_row)
            rows = s.execute(stmt).scalars().all()
            return base.obj_make_list(context, cls(context), InstanceAction,
                                      rows)


@base.KeelObjectRegistry.register
class InstanceActionEvent(base.KeelPersistentObject, base.KeelObject,
                          base.KeelObjectDictCompat):
    VERSION = '1.4'

    fields = {
        'action_id': fields.IntegerField(nullable=True),
        'details': fields.StringField(nullable=True),
        'event': fields.StringField(nullable=True),
        'finish_time': fields.DateTimeField(nullable=True),
        'host': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'result': fields.StringField(nullable=True),
        'start_time': fields.DateTimeField(nullable=True),
        'traceback': fields.StringField(nullable=True),
    }

    _from_db_object = staticmethod(h.simple_from_db)

    @staticmethod
    def _action_for(session, context, instance_uuid):
        row = _find_action(session, instance_uuid, context.request_id)
        if row is None:
            raise exception.InstanceActionNotFound(
                request_id=context.request_id, instance_uuid=instance_uuid)
        return row

    @base.remotable_classmethod
    def get_by_id(cls, context, action_id, event_id):
        with h.cell_reader(context) as s:
            row = s.execute(sa.select(models.InstanceActionEvent).where(
                models.InstanceActionEvent.action_id == action_id,
                models.InstanceActionEvent.id == event_id,
                models.InstanceActionEvent.deleted == 0)).scalars().first()
            if row is None:
                raise exception.InstanceActionEventNotFound(
                    action_id=action_id, event=event_id)
            return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    @h.retry_on_deadlock
    def event_start(cls, context, instance_uuid, event_name,
                    want_result=True, host=None):
        now = timeutils.utcnow()
        stmts = _event_statements()
        with h.cell_core_writer(context) as s:
            conn = s.connection()
            action_id = conn.execute(stmts["newest"], {
                "w_uuid": instance_uuid,
                "w_request": context.request_id}).scalar()
            if action_id is None:
                raise exception.InstanceActionNotFound(
                    request_id=context.request_id,
                    instance_uuid=instance_uuid)
            # The action's updated_at tracks its latest activity.
            conn.execute(stmts["touch"], {"w_id": action_id, "v_now": now})
            row = h.insert_row(s, models.InstanceActionEvent, {
                "action_id": action_id, "event": event_name,
                "start_time": now, "host": host})
            if want_result:
                return cls._from_db_object(context, cls(), row)

    @base.serialize_args
    @base.remotable_classmethod
    @h.retry_on_deadlock
    def event_finish_with_failure(cls, context, instance_uuid, event_name,
                                  exc_val=None, exc_tb=None,
                                  want_result=None):
        """Finish the event; with ``exc_val`` it is an 'Error' and the
        action's message becomes 'Error' as in Nova."""
        if exc_tb is not None and not isinstance(exc_tb, str):
            exc_tb = "".join(tb_mod.format_tb(exc_tb))
        now = timeutils.utcnow()
        stmts = _event_statements()
        with h.cell_core_writer(context) as s:
            conn = s.connection()
            found = conn.execute(stmts["action_and_event"], {
                "w_uuid": instance_uuid, "w_request": context.request_id,
                "w_event": event_name}).first()
            if found is None:
                # Which one is missing, for the right exception.
                action = cls._action_for(s, context, instance_uuid)
                raise exception.InstanceActionEventNotFound(
                    action_id=action.id, event=event_name)
            values = {"finish_time": now, "updated_at": now,
                      "result": RESULT_ERROR if exc_val is not None
                      else RESULT_SUCCESS}
            if exc_val is not None:
                values["details"] = str(exc_val)
                values["traceback"] = exc_tb
            params = {"v_" + k: v for k, v in values.items()}
            params["w_id"] = found.id
            conn.execute(_finish_statement(tuple(sorted(values))), params)
            conn.execute(stmts["touch_error" if exc_val is not None
                               else "touch"],
                         {"w_id": found.w_action_id, "v_now": now})
            if want_result:
                row = dict(found._mapping)
                del row["w_action_id"]
                return cls._from_db_object(context, cls(), h.RowValues(
                    models.InstanceActionEvent, row, values))

    @base.remotable_classmethod
    def event_finish(cls, context, instance_uuid, event_name,
                     want_result=True):
        return cls.event_finish_with_failure(context, instance_uuid,
                                             event_name, exc_val=None,
                                             exc_tb=None,
                                             want_result=want_result)

    @base.remotable
    @h.retry_on_deadlock
    def finish_with_failure(self, exc_val, exc_tb):
        with h.cell_writer(self._context) as s:
            row = s.get(models.InstanceActionEvent, self.id)
            row.finish_time = timeutils.utcnow()
            row.result = RESULT_ERROR if exc_val is not None \
                else RESULT_SUCCESS
            if exc_val is not None:
                row.details = str(exc_val)
                row.traceback = exc_tb if isinstance(exc_tb, str) else None
            s.flush()
            self._from_db_object(self._context, self, row)

    @base.remotable
    def finish(self):
        self.finish_with_failure(exc_val=None, exc_tb=None)

    @base.remotable
    @h.retry_on_deadlock
    def create(self, instance_uuid, request_id):
        h.check_not_created(self)
        with h.cell_writer(self._context) as s:
            action = _find_action(s, instance_uuid, request_id)
            if action is None:
                raise exception.InstanceActionNotFound(
                    request_id=request_id, instance_uuid=instance_uuid)
            values = h.changes_for_db(self, models.InstanceActionEvent)
            values["action_id"] = action.id
            row = models.InstanceActionEvent(**values)
            s.add(row)
            s.flush()
            self._from_db_object(self._context, self, row)


@base.KeelObjectRegistry.register
class InstanceActionEventList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('InstanceActionEvent'),
    }

    @base.remotable_classmethod
    def get_by_action(cls, context, action_id):
        ev = models.InstanceActionEvent
        with h.cell_reader(context) as s:
            rows = s.execute(sa.select(ev).where(
                ev.action_id == action_id, ev.deleted == 0)
                .order_by(ev.created_at.desc(), ev.id.desc())
            ).scalars().all()
            return base.obj_make_list(context, cls(context),
                                      InstanceActionEvent, rows)
