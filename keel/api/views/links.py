"""Links in responses, honouring ``[api]/compute_link_prefix``."""
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
