"""A SQLite cell database, instances stored in it and loaded back (real
objects, lazy loads included), and the notification capture fixture."""
import contextlib
import datetime

import pytest
from oslo_utils import uuidutils

from keel.conf import CONF
from keel import context as keel_context
from keel import objects
from keel.notifications.testing import notification_capture  # noqa: F401
from keel.rpc import transport as rpc_transport
from tests.fixtures import databases

objects.register_all()

VIF = {
    "id": "ce531f90-199f-48c0-816c-13e38010b442",
    "address": "fa:16:3e:4c:2c:30",
    "devname": "tapce531f90-19",
    "type": "ovs", "vnic_type": "normal", "active": True,
    "meta": {}, "details": {}, "ovs_interfaceid": None,
    "qbh_params": None, "qbg_params": None, "preserve_on_delete": False,
    "profile": {},
    "network": {
        "id": "a1e2b9c4-0000-4000-8000-000000000001",
        "label": "private", "bridge": "br-int", "meta": {},
        "subnets": [{
            "cidr": "192.168.1.0/24", "version": 4,
            "gateway": {"address": "192.168.1.1", "type": "gateway",
                        "version": 4, "meta": {}},
            "dns": [], "routes": [], "meta": {},
            "ips": [{"address": "192.168.1.3", "type": "fixed",
                     "version": 4, "meta": {}, "floating_ips": []}],
        }],
    },
}

PUBLIC_KEY = ("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDx8nkQv/zgGgB4rMYmIf+6A4"
              "l6Rr+o/6lHBQdW5aYd44bd8JttDCE/F/pNRr0lRE+PiqSPO8nDPHw0010JeMH"
              "9gYgnnFlyY3/OcJ02RhIPyyxYpv9FhY+2YiUkpwFOcLImyrxEsYXpD/0d3ac"
              "30bNH6Sw9JD9UZHYcpSxsIbECHw== Generated-by-Nova")


def cell_databases(tmp_path):
    """SQLite API and cell databases with every table."""
    return databases.keel_databases("sqlite", tmp_path, "keel_ntf")


@contextlib.contextmanager
def fake_transport():
    """The fake:// transport (in process) for notifications."""
    CONF.set_override("transport_url", "fake:/")
    rpc_transport.cleanup()
    try:
        yield
    finally:
        rpc_transport.cleanup()
        CONF.clear_override("transport_url")


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    # One pair per test module: every test makes its own instances.
    with cell_databases(tmp_path_factory.mktemp("ntfdb")):
        yield


@pytest.fixture
def fake_bus():
    with fake_transport():
        yield


@pytest.fixture
def ctx(dbs, fake_bus):
    return keel_context.RequestContext(
        user_id="fake", project_id="6f70656e737461636b20342065766572",
        request_id="req-5b6c791d-5709-4f36-8fbe-c3e02869e35d")


def make_flavor():
    return objects.Flavor(
        id=1, flavorid="a22d5517-147c-4147-a0d1-e698df5cd4e3",
        name="test_flavor", memory_mb=512, vcpus=1, root_gb=1,
        ephemeral_gb=0, swap=0, rxtx_factor=1.0, vcpu_weight=0,
        disabled=False, is_public=True,
        extra_specs={"hw:watchdog_action": "disabled"}, description=None)


def make_instance(ctx, **kw):
    """An instance written to the cell database and read back, as a
    service holds it."""
    now = datetime.datetime(2012, 10, 29, 13, 42, 11,
                            tzinfo=datetime.timezone.utc)
    keypair = objects.KeyPair(
        name="my-key", user_id="fake", type="ssh", public_key=PUBLIC_KEY,
        fingerprint="1e:2c:9b:56:79:4b:45:77:f9:ca:7a:98:2c:b0:d5:3c")
    values = dict(
        uuid=uuidutils.generate_uuid(), project_id=ctx.project_id,
        user_id=ctx.user_id, host="compute", node="fake-mini",
        vm_state="active", task_state=None, power_state=1,
        display_name="some-server", display_description="some-server",
        hostname="some-server", reservation_id="r-npxv0e40",
        architecture="x86_64", availability_zone="nova",
        image_ref="155d900f-4e14-4e4c-a73d-069cbf4541e6",
        key_name="my-key", kernel_id="", ramdisk_id="", os_type=None,
        progress=0, launched_at=now, memory_mb=512, vcpus=1, root_gb=1,
        ephemeral_gb=0, instance_type_id=1, locked=False,
        auto_disk_config=False, flavor=make_flavor(), metadata={},
        system_metadata={"image_hw_architecture": "x86_64"},
        info_cache=objects.InstanceInfoCache(network_info=[VIF]),
        keypairs=objects.KeyPairList(objects=[keypair]),
        trusted_certs=objects.TrustedCerts(ids=["cert-id-1", "cert-id-2"]))
    values.update(kw)
    inst = objects.Instance(ctx, **values)
    inst.create()
    objects.Tag(ctx, resource_id=inst.uuid, tag="tag").create()
    return objects.Instance.get_by_uuid(
        ctx, inst.uuid,
        expected_attrs=["metadata", "system_metadata", "info_cache",
                        "flavor", "keypairs", "trusted_certs"])


def make_bdms(ctx, instance):
    bdm = objects.BlockDeviceMapping(
        ctx, instance_uuid=instance.uuid,
        uuid=uuidutils.generate_uuid(), source_type="volume",
        destination_type="volume", device_name="/dev/sdb",
        volume_id="a07f71dc-8151-4e7d-a0cc-cd24a3f11113",
        delete_on_termination=False, boot_index=None, tag=None)
    bdm.create()
    return objects.BlockDeviceMappingList.get_by_instance_uuid(
        ctx, instance.uuid)
