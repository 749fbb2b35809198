"""One keystoneauth session per configuration group, loaded from that
group's auth and session options on first use and kept for the process
(the Cinder and Manila clients' way to reach their service)."""
import threading

from keystoneauth1 import loading as ks_loading


class GroupSession:

    def __init__(self, group):
        self.group = group
        self._lock = threading.Lock()
        self._loaded = None

    def get(self, conf):
        """(session, auth) of the group; auth is None without auth options."""
        with self._lock:
            if self._loaded is None:
                auth = ks_loading.load_auth_from_conf_options(conf,
                                                              self.group)
                self._loaded = (ks_loading.load_session_from_conf_options(
                    conf, self.group, auth=auth), auth)
            return self._loaded

    def reset(self):
        """Forget it (tests and a configuration reload)."""
        with self._lock:
            self._loaded = None


def error_message(resp):
    """The message of an OpenStack error body ``{"<kind>": {"message":
    ...}}``, else the response's text."""
    try:
        inner = next(iter(resp.json().values()))
        return inner.get("message") or resp.text
    except Exception:  # noqa: BLE001 - any other body: its text
        return resp.text
