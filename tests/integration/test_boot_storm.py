"""Issue 4's fault test: kill -9 the conductor and a compute in the middle
of a boot storm, restart them; in the end every server is ACTIVE or ERROR
with a fault (none stuck in BUILD, no BuildRequest left) and Placement's
allocations belong to instances that exist — after deleting everything,
Placement holds nothing.

N servers (KEEL_BOOT_STORM_N; 200 by default, 40 under CI=true so the test
stays near a minute), POSTed by 10 client threads through the public API to
separate api/conductor/scheduler/compute processes over RabbitMQ and
MariaDB with the real Placement. The conductor's safety nets
(keel/conductor/tasks/safety.py) run every few seconds here:
[DEFAULT]/instance_build_timeout is short so that lost casts are re-driven
and abandoned builds are found within the test.
"""
import concurrent.futures
import os
import time

import pytest
import requests
import sqlalchemy as sa

from tests.integration.test_boot_rabbit import Deployment
from tests.integration.test_boot_rabbit import create_flavor
from tests.integration.test_boot_rabbit import wait
from tests.integration.test_services_rabbit import _rabbit_or_skip

pytestmark = pytest.mark.integration

N = int(os.environ.get("KEEL_BOOT_STORM_N",
                       "40" if os.environ.get("CI") else "200"))
CONCURRENCY = 10
BUILD_TIMEOUT = 16
HEADERS = {"OpenStack-API-Version": "compute 2.90"}


@pytest.fixture
def storm_cloud(tmp_path):
    _rabbit_or_skip()
    # Two compute processes of two simulated hosts each: one is killed.
    # The computes' heartbeats go through the conductor: with the 6 s
    # service_down_time of the other integration tests every host would
    # look down while the conductor restarts (boots then fail with
    # NoValidHost, correctly but uselessly); 20 s rides out a conductor
    # that takes 10-15 s to start on a busy machine.
    dep = Deployment(
        tmp_path, backend="mysql", hosts=2, computes=2,
        service_down_time=20, extra_control=(
            f"[DEFAULT]\ninstance_build_timeout = {BUILD_TIMEOUT}\n"))
    try:
        yield dep.start()
    finally:
        dep.stop()


def _post(dep, flavor_id, i):
    body = {"server": {"name": f"storm-{i}", "imageRef": dep.image_id,
                       "flavorRef": flavor_id, "networks": "none"}}
    for _ in range(20):
        try:
            resp = requests.post(dep.api + "/v2.1/servers", json=body,
                                 headers=HEADERS, timeout=60)
        except requests.RequestException:
            time.sleep(0.5)
            continue
        assert resp.status_code == 202, resp.text
        return resp.json()["server"]["id"]
    raise AssertionError("POST /servers kept failing")


def _build_requests(dep):
    engine = sa.create_engine(dep.urls["api"])
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text(
                "SELECT COUNT(*) FROM build_requests")).scalar()
    finally:
        engine.dispose()


def test_kill_conductor_and_compute_mid_storm(storm_cloud):
    dep = storm_cloud
    conn = dep.sdk()
    flavor = create_flavor(conn, "storm.tiny")
    conn.close()
    killed = []
    started = time.monotonic()

    def post(i):
        if i == N // 2 and not killed:
            killed.append(time.monotonic())
            dep.kill("conductor")
            dep.kill("compute1")
        return _post(dep, flavor.id, i)

    with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
        futures = [pool.submit(post, i) for i in range(N)]
        # A conductor takes over at once (another conductor host: keel
        # refuses a second start under a name whose record heartbeated
        # recently), the compute comes back as soon as it is let in, while
        # the POSTs keep coming.
        wait(lambda: killed, 120, "the kill")
        time.sleep(1)
        dep.launch("conductor", host=f"cond2-{dep.tag}")
        dep.relaunch("compute1")
        uuids = [f.result() for f in futures]
    posted = time.monotonic() - started
    assert len(set(uuids)) == N

    def settled():
        assert not dep.dead(), dep.dead()
        states = dep.instances()
        building = [u for u, s in states.items() if s[0] == "building"]
        return (len(states) == N and not building and
                _build_requests(dep) == 0) and states
    states = wait(settled, BUILD_TIMEOUT * 4 + 60, "every server to settle",
                  interval=1)
    settled_after = time.monotonic() - started
    assert set(states) == set(uuids)
    errors = {u: s for u, s in states.items() if s[0] != "active"}
    for uuid, (vm_state, task_state, _host, has_fault) in errors.items():
        assert vm_state == "error" and has_fault, (uuid, states[uuid])
    for uuid, (_vm, task_state, _host, _fault) in states.items():
        assert task_state is None, (uuid, states[uuid])
    # Every allocation belongs to an instance that exists; every ACTIVE
    # server holds exactly one, on its own host.
    held = wait(lambda: (lambda h: h if set(h) <= set(states) else None)(
        dep.consumers()), 30, "no allocation without an instance")
    for uuid, (vm_state, _task, host, _fault) in states.items():
        if vm_state == "active":
            assert held.get(uuid) == {host}, (uuid, held.get(uuid), host)
    print(f"\n{N} servers: POSTs done in {posted:.1f} s, all settled after "
          f"{settled_after:.1f} s; {len(errors)} in ERROR with a fault")

    # Deleting everything leaves Placement empty.
    with concurrent.futures.ThreadPoolExecutor(CONCURRENCY) as pool:
        codes = list(pool.map(lambda u: requests.delete(
            f"{dep.api}/v2.1/servers/{u}", headers=HEADERS,
            timeout=60).status_code, uuids))
    assert set(codes) == {204}, codes
    wait(lambda: not dep.instances(), 90, "the servers to be deleted", 1)
    wait(lambda: not dep.consumers(), 60, "Placement to be empty", 1)
