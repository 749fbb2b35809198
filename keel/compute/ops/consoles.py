"""Remote consoles on the compute host: the driver says where the guest's
console listens, the compute records a console authorization token for it
(keel.objects.ConsoleAuthToken, [consoleauth]/token_ttl) and answers the
URL the user opens at the console proxy. The proxy validates the token and
connects to the endpoint; it is not part of this module."""
from keel.compute.ops import states
from keel.conf import CONF
from keel import exception
from keel import objects

_VNC_TYPES = ("novnc",)


def _authorize(context, instance, console_type, console, access_url_base):
    auth = objects.ConsoleAuthToken(
        context=context, console_type=console_type, host=console.host,
        port=console.port, internal_access_path=console.internal_access_path,
        instance_uuid=instance.uuid, access_url_base=access_url_base)
    auth.authorize(CONF.consoleauth.token_ttl)
    return {"token": auth.token, "access_url": auth.access_url,
            "host": console.host, "port": console.port,
            "internal_access_path": console.internal_access_path}


def _endpoint(get, context, instance):
    try:
        return get(context, instance)
    except exception.InstanceNotFound:
        # Still building: the guest is not there yet, try again later.
        if instance.vm_state != states.BUILDING:
            raise
        raise exception.InstanceNotReady(instance_id=instance.uuid)


def get_vnc_console(mgr, context, instance, console_type):
    if not CONF.vnc.enabled:
        raise exception.ConsoleTypeUnavailable(console_type=console_type)
    if console_type not in _VNC_TYPES:
        raise exception.ConsoleTypeInvalid(console_type=console_type)
    console = _endpoint(mgr.driver.get_vnc_console, context, instance)
    return _authorize(context, instance, console_type, console,
                      CONF.vnc.novncproxy_base_url)


def get_serial_console(mgr, context, instance, console_type):
    if not CONF.serial_console.enabled:
        raise exception.ConsoleTypeUnavailable(console_type=console_type)
    if console_type != "serial":
        raise exception.ConsoleTypeInvalid(console_type=console_type)
    console = _endpoint(mgr.driver.get_serial_console, context, instance)
    return _authorize(context, instance, console_type, console,
                      CONF.serial_console.base_url)


def get_spice_console(mgr, context, instance, console_type):
    if not CONF.spice.enabled:
        raise exception.ConsoleTypeUnavailable(console_type=console_type)
    if console_type != "spice-html5":
        raise exception.ConsoleTypeInvalid(console_type=console_type)
    console = _endpoint(mgr.driver.get_spice_console, context, instance)
    return _authorize(context, instance, console_type, console,
                      CONF.spice.html5proxy_base_url)


def clean_expired_tokens(context):
    """Drop the expired console tokens of this cell (Nova's periodic)."""
    objects.ConsoleAuthToken.clean_expired_console_auths(context)
