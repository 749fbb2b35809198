"""server_create_records.write: the API-database rows of accepted servers
written with plain INSERTs leave the objects as their create() would."""
import uuid

from keel.compute_api import server_create_records as records
from keel import context as keel_context
from keel import objects
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.unit.api.conftest import conf  # noqa: F401


def _record(ctx):
    uid = str(uuid.uuid4())
    flavor = objects.Flavor(id=1, flavorid="1", name="tiny", memory_mb=512,
                            vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                            extra_specs={})
    inst = objects.Instance(ctx, uuid=uid, project_id="p", user_id="u",
                            display_name="s", flavor=flavor)
    spec = objects.RequestSpec(ctx, instance_uuid=uid, project_id="p",
                               user_id="u", flavor=flavor, num_instances=1)
    build = objects.BuildRequest(
        ctx, instance=inst, instance_uuid=uid, project_id="p",
        block_device_mappings=objects.BlockDeviceMappingList(objects=[]),
        tags=objects.TagList(objects=[]))
    mapping = objects.InstanceMapping(
        ctx, instance_uuid=uid, project_id="p", user_id="u",
        cell_mapping=None, queued_for_delete=False)
    return spec, build, mapping


def test_write_then_read_back_and_remove(cells_db):  # noqa: F811
    ctx = keel_context.RequestContext("u", "p")
    recs = [_record(ctx), _record(ctx)]
    records.write(ctx, recs)
    for spec, build, mapping in recs:
        for obj in (spec, build, mapping):
            assert obj.id and not obj.obj_what_changed()
        assert build.created_at is not None and build.updated_at is None
        assert not build.instance.obj_what_changed()
        uid = build.instance_uuid
        read = objects.BuildRequest.get_by_instance_uuid(ctx, uid)
        assert (read.id, read.instance.display_name) == (build.id, "s")
        assert read.updated_at is None
        read = objects.InstanceMapping.get_by_instance_uuid(ctx, uid)
        assert (read.id, read.cell_mapping, read.queued_for_delete,
                read.user_id) == (mapping.id, None, False, "u")
        assert objects.RequestSpec.get_by_instance_uuid(ctx, uid).id == \
            spec.id
    records.remove(ctx, recs)
    assert not objects.InstanceMappingList.get_by_instance_uuids(
        ctx, [b.instance_uuid for _s, b, _m in recs])
