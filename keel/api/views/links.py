"""Links in responses, honouring ``[api]/compute_link_prefix``."""
import re
import urllib.parse

from keel.conf import CONF


def with_prefix(url, prefix):
    """``url`` with scheme, host and leading path taken from ``prefix``.

    A deployment behind a proxy sets the prefix to its public base URL; the
    request's own path is kept after the prefix's path.
    """
    if not prefix:
        return url
    parts = list(urllib.parse.urlsplit(url))
    pparts = urllib.parse.urlsplit(prefix)
    parts[0], parts[1] = pparts.scheme, pparts.netloc
    parts[2] = pparts.path.rstrip("/") + parts[2]
    return urllib.parse.urlunsplit(parts).rstrip("/")


def compute_prefix(req):
    return with_prefix(req.application_url, CONF.api.compute_link_prefix)


def url_join(*parts):
    """Join with single slashes; an empty last part leaves a trailing one."""
    parts = parts or ("",)
    clean = [p.strip("/") for p in parts if p]
    if not parts[-1]:
        clean.append("")
    return "/".join(clean)


_VERSION_SUFFIX = re.compile(r"/v[0-9]+(\.[0-9]+)?$")


def remove_version(url):
    """``http://h/compute/v2.1`` → ``http://h/compute`` (bookmark base)."""
    return _VERSION_SUFFIX.sub("", url.rstrip("/"))


def _project_segment(req):
    # Links keep the /{project_id} only when the request URL used one.
    ctx = req.context
    project_id = getattr(ctx, "project_id", None)
    if project_id and project_id in req.path_info.split("/"):
        return project_id
    return ""


def href(req, collection, identifier):
    """The ``self`` link of one resource."""
    return url_join(compute_prefix(req), _project_segment(req), collection,
                    str(identifier))


def bookmark(req, collection, identifier):
    """The version-less ``bookmark`` link of one resource."""
    base = with_prefix(remove_version(req.application_url),
                       CONF.api.compute_link_prefix)
    return url_join(base, _project_segment(req), collection, str(identifier))


def resource_links(req, collection, identifier):
    return [{"rel": "self", "href": href(req, collection, identifier)},
            {"rel": "bookmark",
             "href": bookmark(req, collection, identifier)}]


def next_link(req, collection, marker):
    """``next`` link: the request's query with ``marker`` replaced."""
    params = dict(sorted(req.params.items()))
    params["marker"] = marker
    url = url_join(compute_prefix(req), _project_segment(req), collection)
    return f"{url}?{urllib.parse.urlencode(params)}"


def collection_links(req, items, collection, id_key="uuid"):
    """``[{"rel": "next", …}]`` when the page is full, else ``[]``."""
    max_limit = CONF.api.max_limit
    try:
        limit = min(int(req.params.get("limit", max_limit)), max_limit)
    except ValueError:
        limit = max_limit
    if not limit or limit != len(items):
        return []
    last = items[-1]
    marker = last.get(id_key, last.get("id", last.get("flavorid")))
    return [{"rel": "next", "href": next_link(req, collection, marker)}]
