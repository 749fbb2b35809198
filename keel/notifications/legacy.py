"""Legacy (unversioned) notifications: ``compute.instance.*`` and
``compute_task.*`` with Nova's dict payloads (its ``info_from_instance``).

Every function returns at once, before building anything, when legacy
notifications are off (format ``versioned`` or no notification driver).
"""
import datetime

from keel import notifications

_STRTIME = '%Y-%m-%dT%H:%M:%S.%f'


def null_safe_str(s):
    return str(s) if s else ''


def null_safe_isotime(s):
    if isinstance(s, datetime.datetime):
        return s.strftime(_STRTIME)
    return str(s) if s else ''


def _get(instance, name, default=None):
    if instance.obj_attr_is_set(name):
        return getattr(instance, name)
    return default


def image_meta(system_metadata):
    """``image_*`` system metadata keys, without the prefix."""
    return {k[6:]: v for k, v in (system_metadata or {}).items()
            if k.startswith('image_')}


def _image_ref_url(context, instance):
    """``<glance endpoint>/images/<id>`` as Nova's legacy payloads; the
    image id alone when no Glance endpoint is configured (Nova falls back
    the same way when it cannot find one)."""
    ref = _get(instance, 'image_ref')
    if not ref:
        return ref
    from keel.conf import CONF
    group = getattr(CONF, 'glance', None)
    endpoint = None
    if group is not None:
        servers = getattr(group, 'api_servers', None) or []
        endpoint = (servers[0] if servers
                    else getattr(group, 'endpoint_override', None))
    if not endpoint:
        return ref
    return '%s/images/%s' % (endpoint.rstrip('/'), ref)


def info_from_instance(context, instance, network_info, **kw):
    """The instance fields every ``compute.instance.*`` payload carries."""
    flavor = instance.flavor
    info = dict(
        tenant_id=instance.project_id,
        user_id=instance.user_id,
        instance_id=instance.uuid,
        display_name=instance.display_name,
        reservation_id=_get(instance, 'reservation_id'),
        hostname=_get(instance, 'hostname'),
        instance_type=flavor.name or '',
        instance_type_id=_get(instance, 'instance_type_id'),
        instance_flavor_id=flavor.flavorid or '',
        architecture=_get(instance, 'architecture'),
        memory_mb=flavor.memory_mb,
        disk_gb=flavor.root_gb + flavor.ephemeral_gb,
        vcpus=flavor.vcpus,
        root_gb=flavor.root_gb,
        ephemeral_gb=flavor.ephemeral_gb,
        host=_get(instance, 'host'),
        node=_get(instance, 'node'),
        availability_zone=_get(instance, 'availability_zone'),
        cell_name=null_safe_str(_get(instance, 'cell_name')),
        created_at=str(_get(instance, 'created_at')),
        terminated_at=null_safe_isotime(_get(instance, 'terminated_at')),
        deleted_at=null_safe_isotime(_get(instance, 'deleted_at')),
        launched_at=null_safe_isotime(_get(instance, 'launched_at')),
        image_ref_url=_image_ref_url(context, instance),
        os_type=_get(instance, 'os_type'),
        kernel_id=_get(instance, 'kernel_id'),
        ramdisk_id=_get(instance, 'ramdisk_id'),
        state=instance.vm_state,
        state_description=null_safe_str(instance.task_state),
        # Legacy consumers get '' for no progress (Nova's quirk, kept).
        progress=int(instance.progress) if _get(instance, 'progress')
        else '',
        access_ip_v4=_get(instance, 'access_ip_v4'),
        access_ip_v6=_get(instance, 'access_ip_v6'),
    )
    if network_info is not None:
        fixed_ips = []
        for vif in network_info:
            network = vif.get('network') or {}
            for subnet in network.get('subnets') or []:
                for ip in subnet.get('ips') or []:
                    if ip.get('type', 'fixed') != 'fixed':
                        continue
                    entry = dict(ip)
                    entry['label'] = network.get('label')
                    entry['vif_mac'] = vif.get('address')
                    fixed_ips.append(entry)
        info['fixed_ips'] = fixed_ips
    info['image_meta'] = image_meta(_get(instance, 'system_metadata', {}))
    info['metadata'] = dict(_get(instance, 'metadata', {}) or {})
    info.update(kw)
    return info


def exception_to_dict(fault, message=None):
    """``{'exception', 'message', 'code'}`` as Nova's compute faults."""
    code = getattr(fault, 'code', None) or 500
    if hasattr(fault, 'kwargs'):
        code = fault.kwargs.get('code', code)
    if not message:
        try:
            message = fault.format_message()
        except Exception:  # noqa: BLE001 - any exception may arrive here
            message = str(fault)
    return {'exception': fault, 'message': str(message)[:255],
            'code': code}


def notify_about_instance_usage(context, instance, event_suffix,
                                network_info=None, extra_usage_info=None,
                                fault=None, host=None, service='compute',
                                notifier=None):
    """Send ``compute.instance.<event_suffix>`` (ERROR priority for a
    ``*.error`` suffix) from publisher ``<service>.<host>``."""
    if not notifications.legacy_enabled():
        return
    usage_info = info_from_instance(context, instance, network_info,
                                    **(extra_usage_info or {}))
    if fault:
        usage_info.update(exception_to_dict(fault))
    notifier = notifier or notifications.get_notifier(service, host)
    method = (notifier.error if event_suffix.endswith('error')
              else notifier.info)
    method(context, 'compute.instance.%s' % event_suffix, usage_info)


def _states(instance, old_vm_state, old_task_state, new_vm_state,
            new_task_state):
    # Missing states are the instance's current ones (not None -> X).
    return {
        'old_state': (old_vm_state if old_vm_state is not None
                      else instance.vm_state),
        'state': (new_vm_state if new_vm_state is not None
                  else instance.vm_state),
        'old_task_state': (old_task_state if old_task_state is not None
                           else instance.task_state),
        'new_task_state': (new_task_state if new_task_state is not None
                           else instance.task_state),
    }


def instance_update_payload(context, instance, states, old_display_name,
                            audit_start, audit_end):
    payload = info_from_instance(context, instance, None)
    payload.update(states)
    payload['audit_period_beginning'] = null_safe_isotime(audit_start)
    payload['audit_period_ending'] = null_safe_isotime(audit_end)
    payload['bandwidth'] = {}
    if old_display_name:
        payload['old_display_name'] = old_display_name
    return payload


def _legacy_request_spec(request_spec):
    """The legacy request_spec dict of Nova's notifications (its
    RequestSpec.to_legacy_request_spec_dict) as plain values."""
    if request_spec is None or isinstance(request_spec, dict):
        return request_spec or {}
    from keel.objects import base as obj_base
    spec = request_spec

    def attr(name):
        return getattr(spec, name) if spec.obj_attr_is_set(name) else None

    props = {}
    for name in ('numa_topology', 'pci_requests', 'project_id', 'user_id',
                 'availability_zone', 'instance_uuid'):
        if spec.obj_attr_is_set(name):
            value = obj_base.obj_to_primitive(getattr(spec, name))
            props['uuid' if name == 'instance_uuid' else name] = value
    flavor = attr('flavor')
    if flavor is not None:
        for name in ('root_gb', 'ephemeral_gb', 'memory_mb', 'vcpus'):
            props[name] = getattr(flavor, name)
    image = attr('image')
    return {
        'num_instances': attr('num_instances') or 1,
        'image': obj_base.obj_to_primitive(image) if image else {},
        'instance_properties': props,
        'instance_type': (obj_base.obj_to_primitive(flavor)
                          if flavor is not None else {}),
    }


def notify_compute_task(context, method, instance_uuid, request_spec,
                        vm_state, exc, service='compute_task', host=None):
    """``compute_task.<method>`` at ERROR, as Nova's conductor sends from
    ``set_vm_state_and_notify`` (e.g. build_instances on NoValidHost)."""
    if not notifications.legacy_enabled():
        return
    spec = _legacy_request_spec(request_spec)
    payload = dict(request_spec=spec,
                   instance_properties=spec.get('instance_properties', {}),
                   instance_id=instance_uuid, state=vm_state,
                   method=method, reason=exc)
    notifications.get_notifier(service, host).error(
        context, '%s.%s' % (service, method), payload)
