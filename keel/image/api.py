"""``get_api()``: Nova's image API (nova.image.glance.API's methods) over
Glance, or over the local catalogue when ``[image_catalogue]/path`` is set
and ``[glance]`` names no endpoint or credentials.

Methods: ``get(context, image_id, include_locations=False,
show_deleted=True)``, ``get_all(context, **kwargs)``, ``create(context,
image_meta, data=None)``, ``update(context, image_id, image_meta,
data=None, purge_props=True)``, ``delete(context, image_id)``,
``download(context, image_id, data=None, dst_path=None)``. Images are
Nova's image dicts (``properties`` nested); errors are ImageNotFound,
ImageNotAuthorized, ImageBadRequest, ...
"""
import threading

from keel.conf import CONF

_LOCK = threading.Lock()
_CACHE = {}


def use_local(conf=CONF):
    from keel.clients import glance as glance_client
    return bool(conf.image_catalogue.path) and \
        not glance_client.configured(conf)


def get_api(conf=CONF):
    """The image API for the current configuration (one instance per
    backend and catalogue path, shared by the process)."""
    if use_local(conf):
        key = ("local", conf.image_catalogue.path)
    else:
        group = conf.glance
        key = ("glance", id(conf), tuple(group.api_servers or ()),
               group.endpoint_override, group.auth_type)
    with _LOCK:
        api = _CACHE.get(key)
        if api is None:
            if key[0] == "local":
                from keel.image import local
                api = local.LocalImageAPI(conf.image_catalogue.path)
            else:
                from keel.image import glance
                from keel.clients import glance as glance_client
                api = glance.GlanceImageAPI(glance_client.GlanceClient(conf))
            _CACHE[key] = api
        return api


def reset():
    """Forget cached backends (configuration changed: tests, restarts)."""
    with _LOCK:
        _CACHE.clear()


# Nova spells the class API; both backends have its methods.
def API():  # noqa: N802 - Nova's name
    return get_api()


def glance_url(context, conf=CONF):
    """Glance's base URL for the API's ``alternate`` image links (Nova's
    generate_glance_url), without asking anything remote: the first api
    server, the endpoint override, or the caller's service catalog; None
    when there is no Glance (the local catalogue)."""
    if use_local(conf):
        return None
    from keel.clients import glance as glance_client
    group = conf.glance
    url = None
    if group.api_servers:
        url = group.api_servers[0]
        if "//" not in url:
            url = "http://" + url
    elif group.endpoint_override:
        url = group.endpoint_override
    elif context is not None:
        url = glance_client.ContextAuth(context).get_endpoint(
            None, service_type=group.service_type,
            interface=group.valid_interfaces, region_name=group.region_name)
    return glance_client.strip_version(url) if url else None
