"""Objects: TaskLog, TaskLogList (1.0) -- the record a compute keeps of a
periodic task over an audit period (the instance usage audit): RUNNING
while it works, DONE with its item and error counts after."""
import datetime

import sqlalchemy as sa

from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields


def _naive(value):
    """UTC without tzinfo, as the task_log columns hold it."""
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return value


def _where(task_name, period_beginning, period_ending, host=None,
           state=None):
    log = models.TaskLog
    where = [log.task_name == task_name,
             log.period_beginning == _naive(period_beginning),
             log.period_ending == _naive(period_ending), log.deleted == 0]
    if host is not None:
        where.append(log.host == host)
    if state is not None:
        where.append(log.state == state)
    return where


@base.KeelObjectRegistry.register
class TaskLog(base.KeelPersistentObject, base.KeelObject):
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(read_only=True),
        'task_name': fields.StringField(),
        'state': fields.StringField(read_only=True),
        'host': fields.StringField(),
        'period_beginning': fields.DateTimeField(),
        'period_ending': fields.DateTimeField(),
        'message': fields.StringField(),
        'task_items': fields.IntegerField(),
        'errors': fields.IntegerField(),
    }

    @staticmethod
    def _from_db_object(context, task_log, row):
        for name in task_log.fields:
            value = getattr(row, name)
            if name in ('period_beginning', 'period_ending', 'created_at',
                        'updated_at', 'deleted_at') and value is not None:
                value = value.replace(tzinfo=datetime.timezone.utc)
            if name == 'deleted':
                value = bool(value)
            setattr(task_log, name, value)
        task_log._context = context
        task_log.obj_reset_changes()
        return task_log

    # Read where the database is (the API); computes only begin and end.
    @classmethod
    def get(cls, context, task_name, period_beginning, period_ending, host,
            state=None):
        """The task's log for the period on ``host``, or None."""
        with h.cell_reader(context) as s:
            row = s.execute(sa.select(models.TaskLog).where(*_where(
                task_name, period_beginning, period_ending, host, state))
            ).scalars().first()
            if row is None:
                return None
            return cls._from_db_object(context, cls(), row)

    @base.remotable
    def begin_task(self):
        """Record the task RUNNING; TaskAlreadyRunning if it has a log."""
        values = dict(task_name=self.task_name, state='RUNNING',
                      host=self.host,
                      period_beginning=_naive(self.period_beginning),
                      period_ending=_naive(self.period_ending),
                      message=self.message,
                      task_items=self.task_items
                      if self.obj_attr_is_set('task_items') else 0,
                      errors=0)
        def _running(exc):
            return exception.TaskAlreadyRunning(task_name=self.task_name,
                                                host=self.host)

        with h.translate_duplicates(_running):
            with h.cell_writer(self._context) as s:
                row = models.TaskLog(**values)
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    def end_task(self):
        """Record the task DONE with its errors and message."""
        with h.cell_writer(self._context) as s:
            row = s.execute(sa.select(models.TaskLog).where(*_where(
                self.task_name, self.period_beginning, self.period_ending,
                self.host))).scalars().first()
            if row is None:
                raise exception.TaskNotRunning(task_name=self.task_name,
                                               host=self.host)
            row.state = 'DONE'
            row.errors = self.errors
            row.message = self.message
        self.obj_reset_changes()


@base.KeelObjectRegistry.register
class TaskLogList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('TaskLog'),
    }

    @classmethod
    def get_all(cls, context, task_name, period_beginning, period_ending,
                host=None, state=None):
        with h.cell_reader(context) as s:
            rows = s.execute(sa.select(models.TaskLog).where(*_where(
                task_name, period_beginning, period_ending, host, state))
                .order_by(models.TaskLog.id)).scalars().all()
            items = [TaskLog._from_db_object(context, TaskLog(), r)
                     for r in rows]
        out = cls(context, objects=items)
        out.obj_reset_changes()
        return out
