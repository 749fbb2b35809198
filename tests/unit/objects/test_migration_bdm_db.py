"""Migration and BlockDeviceMapping on the cell database."""
import pytest
from oslo_utils import uuidutils

from keel import exception
from keel import objects


@pytest.fixture
def instance(ctx):
    inst = objects.Instance(ctx, uuid=uuidutils.generate_uuid(),
                            project_id="fake-project", host="h1")
    inst.create()
    return inst


def _migration(ctx, instance, status="migrating", **kw):
    values = dict(instance_uuid=instance.uuid, source_compute="h1",
                  source_node="n1", dest_compute="h2", dest_node="n2",
                  status=status, migration_type="resize",
                  old_instance_type_id=1, new_instance_type_id=2)
    values.update(kw)
    mig = objects.Migration(ctx, **values)
    mig.create()
    return mig


def test_migration_crud_and_lookups(ctx, instance):
    mig = _migration(ctx, instance)
    assert mig.uuid and mig.is_resize and not mig.hidden
    assert objects.Migration.get_by_uuid(ctx, mig.uuid).id == mig.id
    assert objects.Migration.get_by_id_and_instance(
        ctx, mig.id, instance.uuid).id == mig.id
    with pytest.raises(exception.MigrationNotFoundForInstance):
        objects.Migration.get_by_id_and_instance(
            ctx, mig.id, uuidutils.generate_uuid())
    mig.status = "finished"
    mig.save()
    assert objects.Migration.get_by_instance_and_status(
        ctx, instance.uuid, "finished").id == mig.id
    with pytest.raises(exception.MigrationNotFoundByStatus):
        objects.Migration.get_by_instance_and_status(ctx, instance.uuid,
                                                     "migrating")
    assert mig.instance.uuid == instance.uuid
    with pytest.raises(exception.MigrationNotFound):
        objects.Migration.get_by_id(ctx, 999)


def test_migration_lists(ctx, instance):
    running = _migration(ctx, instance)
    _migration(ctx, instance, status="confirmed")
    _migration(ctx, instance, status="error", source_compute="h3",
               source_node="n3", dest_compute="h9", dest_node="n9")
    assert [m.id for m in objects.MigrationList
            .get_in_progress_by_host_and_node(ctx, "h2", "n2")] == \
        [running.id]
    assert [m.id for m in objects.MigrationList.get_in_progress_by_instance(
        ctx, instance.uuid)] == [running.id]
    assert len(objects.MigrationList.get_in_progress_and_error(
        ctx, "h3", "n3")) == 1
    assert len(objects.MigrationList.get_by_filters(
        ctx, {"host": "h1"})) == 2
    assert len(objects.MigrationList.get_by_filters(
        ctx, {"status": ["error", "confirmed"]})) == 2
    page = objects.MigrationList.get_by_filters(
        ctx, {}, sort_keys=["id"], sort_dirs=["asc"], limit=1,
        marker=running.uuid)
    assert len(page) == 1 and page[0].status == "confirmed"


def test_block_device_mappings(ctx, instance):
    vol = uuidutils.generate_uuid()
    root = objects.BlockDeviceMapping(
        ctx, instance_uuid=instance.uuid, source_type="image",
        destination_type="local", boot_index=0,
        image_id=uuidutils.generate_uuid(), device_name="/dev/vda")
    root.create()
    data = objects.BlockDeviceMapping(
        ctx, instance_uuid=instance.uuid, source_type="volume",
        destination_type="volume", boot_index=None, volume_id=vol,
        device_name="/dev/vdb")
    data.create()
    bdms = objects.BlockDeviceMappingList.get_by_instance_uuid(
        ctx, instance.uuid)
    assert bdms.root_bdm().id == root.id and root.is_image
    got = objects.BlockDeviceMapping.get_by_volume_and_instance(
        ctx, vol, instance.uuid, expected_attrs=["instance"])
    assert got.is_volume and got.instance.uuid == instance.uuid
    got.connection_info = '{"driver_volume_type": "iscsi"}'
    got.save()
    assert objects.BlockDeviceMapping.get_by_volume_id(
        ctx, vol).connection_info.startswith("{")
    # Attaching the same volume again updates instead of duplicating.
    again = objects.BlockDeviceMapping(
        ctx, instance_uuid=instance.uuid, source_type="volume",
        destination_type="volume", volume_id=vol, device_name="/dev/vdc")
    again.update_or_create()
    assert again.id == data.id
    assert len(objects.BlockDeviceMappingList.get_by_instance_uuid(
        ctx, instance.uuid)) == 2
    got.destroy()
    with pytest.raises(exception.VolumeBDMNotFound):
        objects.BlockDeviceMapping.get_by_volume(ctx, vol)
    instance.destroy()
    assert len(objects.BlockDeviceMappingList.get_by_instance_uuid(
        ctx, instance.uuid)) == 0


def test_virtual_interfaces(ctx, instance):
    port = uuidutils.generate_uuid()
    vif = objects.VirtualInterface(ctx, instance_uuid=instance.uuid,
                                   uuid=port, address="fa:16:3e:00:00:01",
                                   tag="nic1")
    vif.create()
    with pytest.raises(exception.VirtualInterfaceCreateException):
        objects.VirtualInterface(ctx, instance_uuid=instance.uuid,
                                 uuid=uuidutils.generate_uuid(),
                                 address="fa:16:3e:00:00:01").create()
    got = objects.VirtualInterface.get_by_uuid(ctx, port)
    assert got.tag == "nic1" and not got.obj_attr_is_set("network_id")
    assert objects.VirtualInterface.get_by_address(
        ctx, "fa:16:3e:00:00:01").id == vif.id
    got.tag = "nic2"
    got.save()
    assert [v.tag for v in objects.VirtualInterfaceList.get_by_instance_uuid(
        ctx, instance.uuid)] == ["nic2"]
    objects.VirtualInterface.delete_by_instance_uuid(ctx, instance.uuid)
    assert objects.VirtualInterface.get_by_uuid(ctx, port) is None
