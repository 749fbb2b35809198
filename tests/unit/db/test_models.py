"""Model behaviour on a migrated SQLite cell/API database."""
from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa
from sqlalchemy import orm

from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db.cell import shadow
from keel.db import migration


@pytest.fixture
def cell_engine(tmp_path):
    url = f"sqlite:///{tmp_path}/cell.sqlite"
    migration.db_sync("main", connection=sa.create_engine(url))
    eng = sa.create_engine(url)
    yield eng
    eng.dispose()


@pytest.fixture
def api_engine(tmp_path):
    url = f"sqlite:///{tmp_path}/api.sqlite"
    migration.db_sync("api", connection=sa.create_engine(url))
    eng = sa.create_engine(url)
    yield eng
    eng.dispose()


def _service(**kw):
    values = dict(host="h1", binary="nova-compute", topic="compute",
                  report_count=0)
    values.update(kw)
    return cell_models.Service(**values)


def test_soft_delete_sets_deleted_to_id_and_frees_unique_key(cell_engine):
    with orm.Session(cell_engine) as s:
        svc = _service()
        s.add(svc)
        s.commit()
        assert svc.deleted == 0 and svc.deleted_at is None
        assert svc.created_at is not None
        svc.soft_delete(s)
        s.commit()
        assert svc.deleted == svc.id and svc.deleted_at is not None
        # Nova's unique keys include 'deleted': the host can register again.
        again = _service()
        s.add(again)
        s.commit()
        s.add(_service())
        with pytest.raises(sa.exc.IntegrityError):
            s.commit()


def test_instance_relationships_show_live_rows_and_load_on_demand(
        cell_engine):
    with orm.Session(cell_engine) as s:
        s.add(cell_models.Instance(uuid="i-1", project_id="p"))
        s.flush()
        s.add_all([
            cell_models.InstanceMetadata(instance_uuid="i-1", key="a",
                                         value="1"),
            cell_models.InstanceMetadata(instance_uuid="i-1", key="gone",
                                         value="x", deleted=99),
            cell_models.InstanceSystemMetadata(instance_uuid="i-1",
                                               key="image_os", value="l"),
            cell_models.InstanceExtra(instance_uuid="i-1", flavor="{}"),
            cell_models.InstanceInfoCache(instance_uuid="i-1",
                                          network_info="[]"),
            cell_models.Tag(resource_id="i-1", tag="web"),
        ])
        s.commit()

    with orm.Session(cell_engine) as s:
        inst = s.scalars(sa.select(cell_models.Instance).options(
            orm.joinedload(cell_models.Instance.metadata),
            orm.selectinload(cell_models.Instance.tags),
            orm.joinedload(cell_models.Instance.extra))).unique().one()
    # Loaded eagerly: usable after the session is gone.
    assert [(m.key, m.value) for m in inst.metadata] == [("a", "1")]
    assert [t.tag for t in inst.tags] == ["web"]
    assert inst.extra.flavor == "{}"
    assert inst.name == "instance-%08x" % inst.id

    with orm.Session(cell_engine) as s:
        inst = s.get(cell_models.Instance, inst.id)
        assert [m.key for m in inst.system_metadata] == ["image_os"]
        assert inst.info_cache.network_info == "[]"


def test_instance_uuid_is_unique(cell_engine):
    with orm.Session(cell_engine) as s:
        s.add(cell_models.Instance(uuid="dup"))
        s.commit()
        s.add(cell_models.Instance(uuid="dup"))
        with pytest.raises(sa.exc.IntegrityError):
            s.commit()


def test_api_mapping_relationships(api_engine):
    with orm.Session(api_engine) as s:
        cell = api_models.CellMapping(uuid="c1", name="cell1",
                                      transport_url="none:///",
                                      database_connection="sqlite://")
        s.add(cell)
        s.flush()
        s.add_all([api_models.HostMapping(host="h1", cell_id=cell.id),
                   api_models.InstanceMapping(instance_uuid="i1",
                                              project_id="p",
                                              cell_id=cell.id)])
        flavor = api_models.Flavors(name="m1.tiny", flavorid="1",
                                    memory_mb=512, vcpus=1, swap=0)
        flavor.extra_specs.append(api_models.FlavorExtraSpecs(
            key="hw:cpu_policy", value="dedicated"))
        s.add(flavor)
        s.add(api_models.KeyPair(name="k", user_id="u", public_key="ssh-rsa"))
        s.commit()
    with orm.Session(api_engine) as s:
        hm = s.scalars(sa.select(api_models.HostMapping)).one()
        im = s.scalars(sa.select(api_models.InstanceMapping)).one()
        kp = s.scalars(sa.select(api_models.KeyPair)).one()
    # cell_mapping is joined-loaded with the mapping.
    assert hm.cell_mapping.name == "cell1"
    assert im.cell_mapping.uuid == "c1"
    assert kp.type == "ssh"  # the server default, as Nova's
    assert im.queued_for_delete is False


def test_shadow_tables_copy_columns_without_constraints():
    md = cell_models.Base.metadata
    assert set(shadow.SHADOW_TABLES) == set(shadow.ARCHIVED)
    for name in shadow.ARCHIVED:
        live, copy = md.tables[name], md.tables["shadow_" + name]
        assert [c.name for c in copy.columns] == [c.name for c in live.columns]
        assert not copy.indexes and not copy.foreign_keys
        assert not [c for c in copy.constraints
                    if isinstance(c, sa.UniqueConstraint)]
    pci = md.tables["shadow_pci_devices"]
    assert pci.c.deleted.nullable is False and pci.c.vendor_id.nullable
    assert md.tables["shadow_instances"].c.locked_by.type.name == \
        "shadow_instances0locked_by"
    # Tables Nova does not archive have no shadow copy.
    for name in ("tags", "console_auth_tokens", "share_mapping"):
        assert "shadow_" + name not in md.tables


def test_two_separate_metadatas():
    assert api_models.Base.metadata is not cell_models.Base.metadata
    assert "instances" not in api_models.Base.metadata.tables
    assert "cell_mappings" not in cell_models.Base.metadata.tables


def test_duplicate_entry_is_translated_through_oslo_db(tmp_path):
    """Through keel.db.session (oslo.db), unique violations are
    DBDuplicateEntry, which callers such as map_cell0 rely on."""
    from keel.conf import CONF
    from keel import context
    from keel.db import session
    url = f"sqlite:///{tmp_path}/api.sqlite"
    migration.db_sync("api", connection=sa.create_engine(url))
    CONF.set_override("connection", url, group="api_database")
    session.reset()
    try:
        with session.api_writer(context.get_admin_context()) as s:
            s.add(api_models.CellMapping(uuid="same"))
        with pytest.raises(db_exc.DBDuplicateEntry):
            with session.api_writer(context.get_admin_context()) as s:
                s.add(api_models.CellMapping(uuid="same"))
    finally:
        session.reset()
        CONF.clear_override("connection", group="api_database")
