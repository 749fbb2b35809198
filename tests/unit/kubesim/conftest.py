"""Fixtures: a fresh simulator per test, and official-client APIs bound to it."""
import pytest
from kubernetes import client

from keel.kubesim import KubeSim

NS = "default"


@pytest.fixture
def sim():
    with KubeSim(namespaces=(NS,)) as s:
        s.add_node("node-1", cpu="8", memory="32Gi")
        s.add_node("node-2", cpu="8", memory="32Gi")
        yield s
        assert not s.server_errors, s.server_errors


@pytest.fixture
def api_client(sim):
    return sim.api_client()


@pytest.fixture
def core(api_client):
    return client.CoreV1Api(api_client)


@pytest.fixture
def custom(api_client):
    return client.CustomObjectsApi(api_client)
