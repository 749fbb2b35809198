"""Reading image data from a registered location (``keel manage image
register --location``): ``file://`` paths on this host and ``http(s)://``
URLs, streamed in chunks. Only administrators register locations, as
Glance's policy has it, since the service reads them with its own rights.
"""
import os
import urllib.parse

CHUNK = 64 * 1024
SCHEMES = ("file", "http", "https")


def readable(url):
    return urllib.parse.urlsplit(url or "").scheme in SCHEMES


def stream(url, timeout=60):
    """An iterator over the data at ``url``; OSError when it cannot be
    read."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        path = urllib.parse.unquote(parts.path)
        fh = open(path, "rb")  # raises OSError now, not mid-stream
        return _file_chunks(fh)
    if parts.scheme in ("http", "https"):
        import requests
        try:
            resp = requests.get(url, stream=True, timeout=timeout)
        except requests.RequestException as exc:
            raise OSError(str(exc))
        if resp.status_code != 200:
            resp.close()
            raise OSError("%s answered %s" % (url, resp.status_code))
        return _http_chunks(resp)
    raise OSError("cannot read %s locations" % parts.scheme)


def _file_chunks(fh):
    with fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            yield chunk


def _http_chunks(resp):
    try:
        for chunk in resp.iter_content(CHUNK):
            if chunk:
                yield chunk
    finally:
        resp.close()


def size_of(url):
    """The size of a ``file://`` location, else None."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "file":
        return None
    try:
        return os.path.getsize(urllib.parse.unquote(parts.path))
    except OSError:
        return None
