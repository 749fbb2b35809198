"""Helpers for the scheduler unit tests: request specs and host states
built in memory (no database, no Placement)."""
import datetime
import uuid

import pytest

from keel.conf import CONF
from keel import context as keel_context
from keel import objects
from keel.scheduler import host_manager
from tests.unit.api.conftest import ensure_parsed

objects.register_all()


@pytest.fixture(autouse=True)
def parsed_conf():
    ensure_parsed()


@pytest.fixture
def override():
    done = []

    def _set(name, value, group):
        CONF.set_override(name, value, group=group)
        done.append((name, group))
    yield _set
    for name, group in done:
        CONF.clear_override(name, group=group)


def make_spec(vcpus=2, memory_mb=1024, root_gb=10, ephemeral_gb=0, swap=0,
              extra_specs=None, image=None, group=None, az=None, hints=None,
              project_id="p1", is_bfv=False):
    ctxt = keel_context.get_admin_context()
    flavor = objects.Flavor(flavorid="f", name="f", vcpus=vcpus,
                            memory_mb=memory_mb, root_gb=root_gb,
                            ephemeral_gb=ephemeral_gb, swap=swap,
                            extra_specs=extra_specs or {})
    spec = objects.RequestSpec.from_components(
        ctxt, str(uuid.uuid4()), image, flavor, None, None,
        {"scheduler_hints": hints or {}}, group, az, project_id=project_id,
        user_id="u1")
    spec.is_bfv = is_bfv
    return spec


def make_host(host="h1", free_ram_mb=1024, aggregates=(), instances=(),
              **attrs):
    state = host_manager.HostState(host, host, str(uuid.uuid4()))
    state.uuid = str(uuid.uuid4())
    state.free_ram_mb = free_ram_mb
    state.aggregates = list(aggregates)
    state.instances = dict.fromkeys(instances)
    state.service = objects.Service(
        host=host, binary="nova-compute", disabled=False, forced_down=False,
        last_seen_up=datetime.datetime.now(datetime.timezone.utc),
        created_at=datetime.datetime.now(datetime.timezone.utc))
    for key, value in attrs.items():
        setattr(state, key, value)
    return state


def make_aggregate(metadata=None, hosts=()):
    return objects.Aggregate(id=1, uuid=str(uuid.uuid4()), name="agg",
                             metadata=dict(metadata or {}),
                             hosts=list(hosts))
