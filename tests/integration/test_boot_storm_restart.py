"""Issue 4's restart faults: RabbitMQ, then the database, "restart" in the
middle of a boot storm; no server is lost. In the end every server is
ACTIVE or ERROR with a fault (none stuck in BUILD, no BuildRequest left),
Placement's allocations belong to instances that exist (every ACTIVE one
holds exactly one claim, on its host) and deleting everything empties
Placement.

The machine's RabbitMQ and MariaDB are shared with other tests and are
never restarted: the deployment reaches them through a TCP proxy
(tests/fixtures/tcp_proxy.py) whose ``restart`` resets every connection
and refuses new ones for a few seconds, as a restarting server looks to
its clients. For RabbitMQ, what a restart forgets goes too: the queues and
exchanges of the deployment's private vhost are deleted while the proxy is
down (keel's, like Nova's, are not durable), with the messages in them.
For the database, the server side of every connection is reset as well, so
MariaDB rolls back whatever transaction was open.

The deployment is test_boot_storm.py's (separate api/conductor/scheduler/
compute processes, the real Placement, conductor safety nets with a short
instance_build_timeout, here also in the computes); the storm and its
verdict are tests/fixtures/storm.py's.
"""
import subprocess
import time
import urllib.parse

import pytest
import sqlalchemy as sa

from tests.fixtures import databases
from tests.fixtures import storm
from tests.fixtures.tcp_proxy import TcpProxy
from tests.integration.test_boot_rabbit import Deployment

# A deployment starts in 1-2 minutes on a loaded machine; the storm and
# the deletions take another 1-2.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

N = storm.size(100)
RPC_TIMEOUT = 20    # Deployment's rpc_response_timeout
DOWN = 4            # seconds the server stays away


def _via(url, proxy):
    """``url`` with its 127.0.0.1:<port> pointed at ``proxy``."""
    host, port = proxy.upstream
    old = f"@{host}:{port}/"
    assert old in url, url
    return url.replace(old, f"@127.0.0.1:{proxy.port}/")


class ProxiedDeployment(Deployment):
    """test_boot_storm.py's deployment, its services reaching RabbitMQ and
    MariaDB (the four databases: api, cell, cell0, Placement's) through a
    proxy each. The test's own reads go straight to MariaDB."""

    def __init__(self, tmp, **kw):
        db = sa.engine.make_url(databases.MARIADB_ADMIN_URL)
        rabbit = urllib.parse.urlsplit(databases.RABBIT_URL)
        self.rabbit_proxy = TcpProxy(rabbit.hostname,
                                     rabbit.port or 5672).start()
        self.db_proxy = TcpProxy(db.host, db.port or 3306).start()
        super().__init__(tmp, backend="mysql", **kw)
        self.direct = dict(self.urls)
        self.urls = {k: _via(u, self.db_proxy) for k, u in self.urls.items()}
        self.rabbit_url = _via(self.rabbit_url, self.rabbit_proxy)
        # The computes run the timeout periodic too (Nova's
        # _check_instance_build_time), not only the conductors.
        self._compute_extra = (
            f"[DEFAULT]\ninstance_build_timeout = {storm.BUILD_TIMEOUT}\n")

    def launch(self, name, host=None):
        if name.startswith("compute") and self._compute_extra:
            with open(self.compute_conf, "a") as conf:
                conf.write(self._compute_extra)
            self._compute_extra = ""
        super().launch(name, host)

    def start(self):
        super().start()
        for attr, name in (("engine", "cell"), ("cell0_engine", "cell0")):
            getattr(self, attr).dispose()
            setattr(self, attr, sa.create_engine(self.direct[name]))
        return self

    def stop(self):
        try:
            super().stop()
        finally:
            self.urls = self.direct
            self.rabbit_proxy.stop()
            self.db_proxy.stop()

    # -- the restarts -------------------------------------------------------
    def restart_rabbitmq(self):
        started = time.monotonic()
        self.rabbit_proxy.go_down()
        try:
            self._forget_vhost()
        finally:
            time.sleep(max(0.0, DOWN - (time.monotonic() - started)))
            self.rabbit_proxy.come_up()

    def restart_database(self):
        self.db_proxy.restart(DOWN)

    def _forget_vhost(self):
        """Delete the vhost's queues and exchanges (with their messages):
        none is durable, so a restarted broker would not have them."""
        import kombu

        if not self.vhost:
            return
        names = {}
        for kind in ("queues", "exchanges"):
            out = subprocess.run(
                ["rabbitmqctl", f"list_{kind}", "-p", self.vhost, "name",
                 "--no-table-headers", "-q"], capture_output=True,
                text=True, timeout=30)
            assert out.returncode == 0, out.stderr
            names[kind] = [n for n in out.stdout.split()
                           if n and not n.startswith("amq.")]
        url = databases.RABBIT_URL.replace("rabbit://", "amqp://")
        with kombu.Connection(f"{url.rstrip('/')}/{self.vhost}",
                              connect_timeout=5) as conn:
            for name in names["queues"]:
                conn.channel().queue_delete(name)
            for name in names["exchanges"]:
                conn.channel().exchange_delete(name)


@pytest.fixture
def storm_cloud(tmp_path):
    with storm.deployment(ProxiedDeployment, tmp_path) as dep:
        yield dep


def _storm(dep, fault):
    # A lost request is re-sent after 2 x rpc_response_timeout (40 s); a
    # re-sent one lost again is buried in cell0 at the next pass.
    storm.run(dep, N, fault, tolerate_5xx=True,
              settle_timeout=4 * RPC_TIMEOUT + storm.BUILD_TIMEOUT + 30)


def test_rabbitmq_restart_mid_storm(storm_cloud):
    _storm(storm_cloud, storm_cloud.restart_rabbitmq)


def test_database_restart_mid_storm(storm_cloud):
    _storm(storm_cloud, storm_cloud.restart_database)
