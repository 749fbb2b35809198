"""PyMySQL's default ("preferred") TLS mode builds a new ssl.SSLContext for
every connection, loading the system's CA bundle each time (~30 ms of CPU)
although that context never verifies anything (CERT_NONE, no hostname
check). A pool that opens connections under load (overflow beyond
max_pool_size is closed on checkin) paid this on every new connection.
One context per process serves them all (an SSLContext is meant to be
shared); explicit ssl settings in the URL keep PyMySQL's own handling.
"""
import threading

_lock = threading.Lock()
_preferred = {}
_installed = False


def install():
    global _installed
    if _installed:
        return
    try:
        from pymysql import connections
    except ImportError:
        return
    original = connections.Connection._create_ssl_ctx

    def create_ssl_ctx(self, sslp):
        if isinstance(sslp, dict) and not sslp:
            with _lock:
                ctx = _preferred.get("ctx")
                if ctx is None:
                    ctx = _preferred["ctx"] = original(self, sslp)
            return ctx
        return original(self, sslp)

    connections.Connection._create_ssl_ctx = create_ssl_ctx
    _installed = True
