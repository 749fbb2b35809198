"""The ``shadow_*`` archive tables of a cell database, as Nova 34 has them.

``nova-manage db archive_deleted_rows`` moves soft-deleted rows into these
copies. Nova's shadow tables have the columns of their live table but no
indexes, unique or foreign key constraints, so they are derived here from
the models rather than written twice.
"""
import sqlalchemy as sa

from keel.db.cell import models

# Live tables that have a shadow copy in Nova 34 (among those keel models).
ARCHIVED = (
    "instances", "instance_extra", "instance_system_metadata",
    "instance_metadata", "instance_info_caches", "instance_faults",
    "instance_actions", "instance_actions_events", "block_device_mapping",
    "migrations", "compute_nodes", "services", "virtual_interfaces",
    "task_log", "instance_id_mappings", "pci_devices",
)

# Where Nova's shadow columns differ from the live table's.
_NULLABLE = {
    ("pci_devices", "deleted"): False,
    ("pci_devices", "product_id"): True,
    ("pci_devices", "vendor_id"): True,
    ("pci_devices", "dev_type"): True,
}


def _shadow_type(table_name, column):
    if isinstance(column.type, sa.Enum):
        # PostgreSQL enum types are schema objects: the shadow of
        # instances.locked_by has its own type, Nova's name; the shadow
        # migrations table shares the live table's migration_type.
        name = column.type.name
        if table_name == "instances":
            name = "shadow_instances0locked_by"
        return sa.Enum(*column.type.enums, name=name)
    return column.type


def _shadow(table):
    columns = []
    for col in table.columns:
        columns.append(sa.Column(
            col.name, _shadow_type(table.name, col),
            primary_key=col.primary_key,
            autoincrement=col.autoincrement,
            nullable=_NULLABLE.get((table.name, col.name), col.nullable),
            server_default=col.server_default))
    return sa.Table("shadow_" + table.name, table.metadata, *columns,
                    **table.kwargs)


SHADOW_TABLES = {name: _shadow(models.Base.metadata.tables[name])
                 for name in ARCHIVED}
