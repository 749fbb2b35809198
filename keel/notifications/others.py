"""Versioned notifications about things other than instances, as Nova's
helpers; no-ops while versioned notifications are off:

  notify_about_scheduler_action(context, request_spec, action, phase=None)
      scheduler.select_destinations.start/end (scheduler)
  notify_about_keypair_action(context, keypair, action, phase)
      keypair.<create|import|delete>.<start|end> (API)
  notify_about_service(context, service, action)
      service.<create|update|delete> (publisher: the service's binary/host)
  notify_about_flavor(context, flavor, action)
      flavor.<create|update|delete> (API)
  notify_about_aggregate_action(context, aggregate, action, phase)
      aggregate.<create|delete|add_host|...>.<start|end> (API)
  notify_about_server_group_action(context, group, action)
      server_group.<create|delete|add_member> (API)
"""
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


@base.notification
class ServiceStatusNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('ServiceStatusPayload')}


@base.notification
class FlavorNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('FlavorPayload')}


@base.notification
class AggregateNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('AggregatePayload')}


@base.notification
class ServerGroupNotification(base.NotificationBase):
    VERSION = '1.0'
    fields = {'payload': fields.ObjectField('ServerGroupPayload')}


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


def notify_about_service(context, service, action):
    """service.<action> (create, update, delete) from the service itself."""
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import resources
    source = nf.NotificationSource.get_source_by_binary(service.binary)
    _emit(context, ServiceStatusNotification, source, 'service', action,
          None, resources.ServiceStatusPayload(service), host=service.host)


def notify_about_flavor(context, flavor, action, host=None):
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import common
    _emit(context, FlavorNotification, nf.NotificationSource.API, 'flavor',
          action, None, common.FlavorPayload(flavor=flavor), host)


def notify_about_aggregate_action(context, aggregate, action, phase,
                                  host=None):
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import resources
    _emit(context, AggregateNotification, nf.NotificationSource.API,
          'aggregate', action, phase, resources.AggregatePayload(aggregate),
          host)


def notify_about_server_group_action(context, group, action, host=None):
    if not notifications.versioned_enabled():
        return
    from keel.notifications.objects import request_spec as rs_payload
    _emit(context, ServerGroupNotification, nf.NotificationSource.API,
          'server_group', action, None, rs_payload.ServerGroupPayload(group),
          host)
