"""Manila shares on the compute host (Nova's allow_share / deny_share).

allow_share grants the host's access rule on the share (NFS: this host's
IP; CephFS: the 'nova' cephx user), waits until Manila reports it active
and leaves the mapping 'inactive' (mounted at the next start). deny_share
removes the rule unless another instance of this host still uses the
share, then deletes the mapping. A failure puts the mapping in 'error' and
sends the .error notification. Operations on one share are serialised
(Nova's synchronized(share_id)).
"""
import time

from oslo_log import log as logging

from keel.conf import CONF
from keel import exception
from keel.notifications import fields as nf
from keel import objects
from keel.objects import fields

LOG = logging.getLogger(__name__)
ATTACH = nf.NotificationAction.SHARE_ATTACH
DETACH = nf.NotificationAction.SHARE_DETACH
START, END, ERROR = (nf.NotificationPhase.START, nf.NotificationPhase.END,
                     nf.NotificationPhase.ERROR)


def manila_api():
    from keel.clients import manila
    return manila.API()


def _notify(context, instance, action, phase, share_id, exc=None):
    try:
        from keel.notifications import instance_actions
        instance_actions.notify_about_share_attach_detach(
            context, instance, instance.host, action, phase,
            share_id=share_id, exception=exc)
    except Exception:  # noqa: BLE001 - a notification is a side channel
        LOG.exception("Could not emit instance.%s.%s", action, phase)


def _set_status(mapping, status):
    mapping.status = status
    mapping.save()


def _wait_for_access(api, context, mapping):
    """Manila applies a rule asynchronously: poll until it is active."""
    for attempt in range(max(CONF.manila.share_apply_policy_timeout, 1)):
        if api.has_access(context, mapping.share_id, mapping.access_type,
                          mapping.access_to):
            return
        time.sleep(1)
    raise exception.ShareAccessGrantError(
        share_id=mapping.share_id,
        reason="the access rule did not become active")


def allow_share(mgr, context, instance, share_mapping):
    with mgr.instance_lock("share-" + share_mapping.share_id):
        _notify(context, instance, ATTACH, START, share_mapping.share_id)
        api = manila_api()
        try:
            share_mapping.set_access_according_to_protocol()
            if not api.has_access(context, share_mapping.share_id,
                                  share_mapping.access_type,
                                  share_mapping.access_to):
                api.allow(context, share_mapping.share_id,
                          share_mapping.access_type,
                          share_mapping.access_to, "rw")
                _wait_for_access(api, context, share_mapping)
            _set_status(share_mapping, fields.ShareMappingStatus.INACTIVE)
        except (exception.ShareNotFound, exception.ShareProtocolNotSupported,
                exception.ShareAccessGrantError,
                exception.ManilaConnectionFailed) as exc:
            _set_status(share_mapping, fields.ShareMappingStatus.ERROR)
            _notify(context, instance, ATTACH, ERROR,
                    share_mapping.share_id, exc)
            LOG.error(exc.format_message(), instance=instance)
            raise
        _notify(context, instance, ATTACH, END, share_mapping.share_id)


def _still_used(context, mapping, host):
    """Whether another instance of ``host`` still holds the share (the
    access rule is per host, not per instance)."""
    others = objects.ShareMappingList.get_by_share_id(context,
                                                      mapping.share_id)
    for other in others:
        if other.instance_uuid == mapping.instance_uuid:
            continue
        try:
            inst = objects.Instance.get_by_uuid(context, other.instance_uuid,
                                                expected_attrs=[])
        except exception.InstanceNotFound:
            continue
        if inst.host == host:
            return True
    return False


def deny_share(mgr, context, instance, share_mapping):
    with mgr.instance_lock("share-" + share_mapping.share_id):
        _notify(context, instance, DETACH, START, share_mapping.share_id)
        try:
            share_mapping.set_access_according_to_protocol()
            if not _still_used(context, share_mapping, instance.host):
                manila_api().deny(context, share_mapping.share_id,
                                  share_mapping.access_type,
                                  share_mapping.access_to)
        except (exception.ShareAccessNotFound, exception.ShareNotFound):
            # Nothing left to remove on Manila's side: forget the mapping.
            LOG.info("Share %s access already gone, detaching it",
                     share_mapping.share_id, instance=instance)
        except (exception.ShareAccessRemovalError,
                exception.ShareProtocolNotSupported,
                exception.ManilaConnectionFailed) as exc:
            _set_status(share_mapping, fields.ShareMappingStatus.ERROR)
            _notify(context, instance, DETACH, ERROR,
                    share_mapping.share_id, exc)
            LOG.error(exc.format_message(), instance=instance)
            raise
        share_mapping.delete()
        _notify(context, instance, DETACH, END, share_mapping.share_id)


# -- at power on / off (Nova's _mount_all_shares / _umount_all_shares) --------

_MOUNTED = (fields.ShareMappingStatus.INACTIVE,
            fields.ShareMappingStatus.ACTIVE)


def share_info(context, instance):
    """The instance's shares the guest gets (attached: 'inactive' or
    'active'); one still attaching or detaching waits for its cast."""
    return [m for m in objects.ShareMappingList.get_by_instance_uuid(
        context, instance.uuid) if m.status in _MOUNTED]


def _set_all(mappings, status):
    for mapping in mappings:
        if mapping.status != status:
            _set_status(mapping, status)


def mount_all(mgr, context, instance):
    """Mount every attached share on the host before the guest starts;
    a share that cannot be mounted goes to 'error' and the start fails."""
    mappings = share_info(context, instance)
    for mapping in mappings:
        with mgr.instance_lock("share-" + mapping.share_id):
            try:
                mapping.set_access_according_to_protocol()
                mgr.driver.mount_share(context, instance, mapping)
            except Exception:
                _set_status(mapping, fields.ShareMappingStatus.ERROR)
                LOG.error("Share %s could not be mounted", mapping.share_id,
                          instance=instance)
                raise
    return mappings


def activate_all(mappings):
    """The guest runs with its shares: 'active'."""
    _set_all(mappings, fields.ShareMappingStatus.ACTIVE)


def umount_all(mgr, context, instance):
    """After the guest stopped: its shares 'inactive', then unmounted (a
    failure to unmount is logged; the share stays attached)."""
    mappings = share_info(context, instance)
    _set_all(mappings, fields.ShareMappingStatus.INACTIVE)
    for mapping in mappings:
        with mgr.instance_lock("share-" + mapping.share_id):
            try:
                mapping.set_access_according_to_protocol()
                mgr.driver.umount_share(context, instance, mapping)
            except Exception:  # noqa: BLE001 - the stop itself succeeded
                LOG.exception("Share %s could not be unmounted",
                              mapping.share_id, instance=instance)
