"""Versioned notifications about things other than instances:
scheduler.select_destinations.start/end (scheduler) and
keypair.<create|import|delete>.<start|end> (API), as Nova's compute/utils
helpers; no-ops while versioned notifications are off."""
from keel.conf import CONF
from keel import notifications
from keel.notifications import base
from keel.notifications import fields as nf
from keel.objects import fields


@base.notification
class SelectDestinationsNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('RequestSpecPayload')}


@base.notification
class KeypairNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('KeypairPayload')}


def _emit(context, cls, source, obj, action, phase, payload, host=None):
    cls(priority=nf.NotificationPriority.INFO,
        publisher=base.NotificationPublisher(host=host or CONF.host,
                                             source=source),
        event_type=base.EventType(object=obj, action=action, phase=phase),
        payload=payload).emit(context)


def notify_about_scheduler_action(context, request_spec, action, phase=None,
                                  source=nf.NotificationSource.SCHEDULER,
                                  host=None):
    """scheduler.<action>[.<phase>] with the RequestSpecPayload."""
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import request_spec as rs_payload
    _emit(context, SelectDestinationsNotification, source, 'scheduler',
          action, phase, rs_payload.RequestSpecPayload(request_spec), host)


def notify_about_keypair_action(context, keypair, action, phase, host=None):
    """keypair.<action>.<phase> from the API (action: create, import,
    delete)."""
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import common
    _emit(context, KeypairNotification, nf.NotificationSource.API,
          'keypair', action, phase, common.KeypairPayload(keypair=keypair),
          host)
