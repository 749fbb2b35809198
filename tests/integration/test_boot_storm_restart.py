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
instance_build_timeout, here also in the computes).
"""
import concurrent.futures
import os
import subprocess
import threading
import time
import urllib.parse

import pytest
import requests
import sqlalchemy as sa

from tests.fixtures import databases
from tests.fixtures.tcp_proxy import TcpProxy
from tests.integration.test_boot_rabbit import Deployment
from tests.integration.test_boot_rabbit import create_flavor
from tests.integration.test_boot_rabbit import wait
from tests.integration.test_services_rabbit import _rabbit_or_skip

# A deployment starts in 1-2 minutes on a loaded machine; the storm and
# the deletions take another 1-2.
pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

N = int(os.environ.get("KEEL_BOOT_STORM_N",
                       "40" if os.environ.get("CI") else "100"))
CONCURRENCY = 10
BUILD_TIMEOUT = 16
RPC_TIMEOUT = 20    # Deployment's rpc_response_timeout
DOWN = 4            # seconds the server stays away
HEADERS = {"OpenStack-API-Version": "compute 2.90"}


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
            f"[DEFAULT]\ninstance_build_timeout = {BUILD_TIMEOUT}\n")

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

    def build_requests(self):
        engine = sa.create_engine(self.direct["api"])
        try:
            with engine.connect() as conn:
                return conn.execute(sa.text(
                    "SELECT COUNT(*) FROM build_requests")).scalar()
        finally:
            engine.dispose()

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
    _rabbit_or_skip()
    # As test_boot_storm.py: two compute processes of two hosts each, a
    # service_down_time that rides out the conductor reconnecting.
    dep = ProxiedDeployment(
        tmp_path, hosts=2, computes=2, service_down_time=20,
        extra_control=f"[DEFAULT]\ninstance_build_timeout = {BUILD_TIMEOUT}\n")
    try:
        yield dep.start()
    finally:
        dep.stop()


def _post(dep, flavor_id, i, refused):
    """POST one server; while the database is away the API answers 5xx
    (or the connection fails) and the client tries again, as clients do."""
    body = {"server": {"name": f"storm-{i}", "imageRef": dep.image_id,
                       "flavorRef": flavor_id, "networks": "none"}}
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            resp = requests.post(dep.api + "/v2.1/servers", json=body,
                                 headers=HEADERS, timeout=60)
        except requests.RequestException:
            time.sleep(0.5)
            continue
        if resp.status_code >= 500:
            refused.append(resp.status_code)
            time.sleep(0.5)
            continue
        assert resp.status_code == 202, resp.text
        return resp.json()["server"]["id"]
    raise AssertionError("POST /servers kept failing")


def _delete(dep, uuid):
    """DELETE one server: 204, or a 5xx tried again (the machine's MariaDB
    is shared, and other tests can exhaust its connections). A retry of a
    delete that went through meanwhile finds the server gone: 404."""
    for attempt in range(20):
        try:
            code = requests.delete(f"{dep.api}/v2.1/servers/{uuid}",
                                   headers=HEADERS, timeout=60).status_code
        except requests.RequestException:
            code = None
        if code == 404 and attempt:
            return 204
        if code is not None and code < 500:
            return code
        time.sleep(1)
    return code


def _storm(dep, fault):
    conn = dep.sdk()
    flavor = create_flavor(conn, "storm.tiny")
    conn.close()
    fired, refused = [], []
    started = time.monotonic()

    def post(i):
        if i == N // 2 and not fired:
            fired.append(threading.Thread(target=fault))
            fired[0].start()
        return _post(dep, flavor.id, i, refused)

    with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
        uuids = list(pool.map(post, range(N)))
    fired[0].join()
    posted = time.monotonic() - started
    assert len(set(uuids)) == N

    def settled():
        assert not dep.dead(), dep.dead()
        states = dep.instances()
        building = [u for u, s in states.items() if s[0] == "building"]
        return (set(uuids) <= set(states) and not building and
                dep.build_requests() == 0) and states
    try:
        # A lost request is re-sent after 2 x rpc_response_timeout (40 s);
        # a re-sent one lost again is buried in cell0 at the next pass.
        states = wait(settled, 4 * RPC_TIMEOUT + BUILD_TIMEOUT + 30,
                      "every server to settle", interval=1)
    except AssertionError:
        stuck = {u: s for u, s in dep.instances().items()
                 if s[0] == "building"}
        raise AssertionError(
            f"{len(stuck)} in BUILD, {dep.build_requests()} build "
            f"requests left, {len(set(uuids) - set(dep.instances()))} "
            f"servers without an instance: {stuck}")
    settled_after = time.monotonic() - started
    # A POST answered 5xx may still have made a server: it settles too.
    errors = {u: s for u, s in states.items() if s[0] != "active"}
    for uuid, (vm_state, task_state, _host, has_fault) in errors.items():
        assert vm_state == "error" and has_fault, (uuid, states[uuid])
    for uuid, (_vm, task_state, _host, _fault) in states.items():
        assert task_state is None, (uuid, states[uuid])

    # Every allocation belongs to an instance that exists; every ACTIVE
    # server holds exactly one, on its own host; a server in ERROR holds
    # none elsewhere than its host.
    held = wait(lambda: (lambda h: h if set(h) <= set(states) else None)(
        dep.consumers()), 30, "no allocation without an instance")
    for uuid, (vm_state, _task, host, _fault) in states.items():
        if vm_state == "active":
            assert held.get(uuid) == {host}, (uuid, held.get(uuid), host)
        else:
            assert held.get(uuid, set()) <= {host}, (uuid, held.get(uuid))
    print(f"\n{N} servers: POSTs done in {posted:.1f} s ({len(refused)} "
          f"answered 5xx and retried), all settled after "
          f"{settled_after:.1f} s; {len(errors)} in ERROR with a fault; "
          f"{len(states) - N} more from failed POSTs")

    # Deleting everything leaves Placement empty.
    with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
        codes = list(pool.map(lambda u: _delete(dep, u), sorted(states)))
    assert set(codes) == {204}, codes
    wait(lambda: not dep.instances(), 60, "the servers to be deleted", 1)
    wait(lambda: not dep.consumers(), 60, "Placement to be empty", 1)
    assert not dep.dead(), dep.dead()


def test_rabbitmq_restart_mid_storm(storm_cloud):
    _storm(storm_cloud, storm_cloud.restart_rabbitmq)


def test_database_restart_mid_storm(storm_cloud):
    _storm(storm_cloud, storm_cloud.restart_database)
