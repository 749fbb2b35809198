"""os-simple-tenant-usage bodies: datetimes as Nova's naive ISO strings."""
from keel.api.views.services import isotime

_TIMES = ("start", "stop", "started_at", "ended_at")


def _plain(doc):
    out = {}
    for key, value in doc.items():
        if key in _TIMES:
            value = isotime(value)
        elif key == "server_usages":
            value = [_plain(s) for s in value]
        out[key] = value
    return out


def usages(summaries):
    return [_plain(s) for s in summaries]
