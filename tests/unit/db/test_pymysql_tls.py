"""keel.db.pymysql_tls: PyMySQL's default (preferred, unverified) TLS
context is built once per process; explicit ssl settings are not shared."""
import ssl

from pymysql import connections

from keel.db import pymysql_tls
from keel.db import session  # noqa: F401 - installs the hook on import


def test_the_preferred_context_is_shared_and_explicit_ones_are_not():
    pymysql_tls.install()      # idempotent
    create = connections.Connection._create_ssl_ctx
    first, second = create(None, {}), create(None, {})
    assert first is second
    assert first.verify_mode == ssl.CERT_NONE and not first.check_hostname
    explicit = [create(None, {"verify_mode": True}) for _ in range(2)]
    assert explicit[0] is not explicit[1]
    assert explicit[0].verify_mode == ssl.CERT_REQUIRED
