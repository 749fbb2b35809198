"""Object: ConsoleAuthToken (1.3) -- the authorization a console proxy checks
before it connects a user to a guest's console.

Only the SHA-256 of the token is stored; the token itself exists in the
object that ``authorize()`` returns it from and in the URL given to the
user. Tokens live in the cell database of their instance and expire after
[consoleauth]/token_ttl seconds.
"""
import hashlib
import time
from urllib import parse as urlparse
import uuid as uuid_lib

import sqlalchemy as sa

from keel.db.cell import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields


def _hash(token):
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@base.KeelObjectRegistry.register
class ConsoleAuthToken(base.KeelTimestampObject, base.KeelObject):
    VERSION = '1.3'

    fields = {
        'id': fields.IntegerField(),
        'console_type': fields.StringField(nullable=False),
        'host': fields.StringField(nullable=False),
        'port': fields.IntegerField(nullable=False),
        'tls_port': fields.IntegerField(nullable=True),
        'internal_access_path': fields.StringField(nullable=True),
        'instance_uuid': fields.UUIDField(nullable=False),
        'access_url_base': fields.StringField(nullable=True),
        'expires': fields.IntegerField(nullable=False),
        'token': fields.StringField(nullable=False),
    }

    @property
    def access_url(self):
        """The URL the user opens: the proxy's base URL with the token
        (noVNC reads it from its ``path`` parameter)."""
        if not self.obj_attr_is_set('id'):
            return None
        if self.console_type == 'novnc':
            query = urlparse.urlencode({'path': '?token=%s' % self.token})
            return '%s?%s' % (self.access_url_base, query)
        return '%s?token=%s' % (self.access_url_base, self.token)

    @staticmethod
    def _from_db_object(context, obj, row):
        for name in obj.fields:
            if name != 'token' and hasattr(row, name):
                setattr(obj, name, getattr(row, name))
        obj._context = context
        obj.obj_reset_changes()
        return obj

    @base.remotable
    def authorize(self, ttl):
        """Store a new token valid for ``ttl`` seconds; returns it."""
        if self.obj_attr_is_set('id'):
            raise exception.ObjectActionError(
                action='authorize', reason='must be a new object')
        token = str(uuid_lib.uuid4())
        values = {name: getattr(self, name) for name in (
            'console_type', 'host', 'port', 'internal_access_path',
            'instance_uuid', 'access_url_base') if self.obj_attr_is_set(name)}
        if self.obj_attr_is_set('tls_port'):
            values['tls_port'] = self.tls_port
        values['token_hash'] = _hash(token)
        values['expires'] = int(time.time()) + int(ttl)
        with h.cell_writer(self._context) as s:
            row = models.ConsoleAuthToken(**values)
            s.add(row)
            s.flush()
            self._from_db_object(self._context, self, row)
        self.token = token
        self.obj_reset_changes()
        return token

    @base.remotable_classmethod
    def validate(cls, context, token):
        """The unexpired authorization of ``token``; InvalidToken if none."""
        with h.cell_reader(context) as s:
            row = s.execute(sa.select(models.ConsoleAuthToken).where(
                models.ConsoleAuthToken.token_hash == _hash(token),
                models.ConsoleAuthToken.expires > int(time.time()))
            ).scalars().first()
            if row is None:
                raise exception.InvalidToken(token='***')
            obj = cls._from_db_object(context, cls(), row)
        obj.token = token
        obj.obj_reset_changes()
        return obj

    @base.remotable_classmethod
    def clean_console_auths_for_instance(cls, context, instance_uuid):
        with h.cell_writer(context) as s:
            s.execute(sa.delete(models.ConsoleAuthToken).where(
                models.ConsoleAuthToken.instance_uuid == instance_uuid))

    @base.remotable_classmethod
    def clean_expired_console_auths(cls, context):
        with h.cell_writer(context) as s:
            s.execute(sa.delete(models.ConsoleAuthToken).where(
                models.ConsoleAuthToken.expires <= int(time.time())))

    @base.remotable_classmethod
    def clean_expired_console_auths_for_host(cls, context, host):
        with h.cell_writer(context) as s:
            s.execute(sa.delete(models.ConsoleAuthToken).where(
                models.ConsoleAuthToken.host == host,
                models.ConsoleAuthToken.expires <= int(time.time())))
