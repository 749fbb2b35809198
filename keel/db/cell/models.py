"""SQLAlchemy models of a cell database (cell0 too), as Nova 34's.

Table for table the schema upstream Nova's migrations create, so an existing
``nova`` / ``nova_cell0`` database is used as it is. Soft delete is Nova's:
``deleted`` is 0 for a live row and the row's id once deleted (so unique
constraints that include ``deleted`` allow re-creating a name), plus
``deleted_at``. The ``shadow_*`` archive tables are in ``shadow.py``.

Legacy tables upstream still carries (nova-network, cells v1, ...) are not
modelled: keel never touches them.
"""
from oslo_db.sqlalchemy import models
import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.dialects import mysql

TABLE_ARGS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8"}


def MediumText():
    """TEXT everywhere, MEDIUMTEXT on MySQL (as Nova: payloads over 64k)."""
    return sa.Text().with_variant(mysql.MEDIUMTEXT(), "mysql")


class Base(orm.DeclarativeBase):
    """Declarative base of the cell database only (its own MetaData)."""

    metadata = sa.MetaData()


class _Model(models.TimestampMixin, models.ModelBase):
    __table_args__ = (TABLE_ARGS,)

    def __repr__(self):
        return f"<{type(self).__name__} id={getattr(self, 'id', None)}>"


class _SoftDelete(models.SoftDeleteMixin):
    """deleted_at + deleted (0, or the id once soft-deleted)."""


class Service(Base, _Model, _SoftDelete):
    """A running nova-* (keel) service on a host."""

    __tablename__ = "services"
    __table_args__ = (
        sa.UniqueConstraint("host", "topic", "deleted",
                            name="uniq_services0host0topic0deleted"),
        sa.UniqueConstraint("host", "binary", "deleted",
                            name="uniq_services0host0binary0deleted"),
        sa.UniqueConstraint("uuid", name="services_uuid_idx"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=True)
    host = sa.Column(sa.String(255))
    binary = sa.Column(sa.String(255))
    topic = sa.Column(sa.String(255))
    report_count = sa.Column(sa.Integer, nullable=False, default=0)
    disabled = sa.Column(sa.Boolean, default=False)
    disabled_reason = sa.Column(sa.String(255))
    last_seen_up = sa.Column(sa.DateTime, nullable=True)
    forced_down = sa.Column(sa.Boolean, default=False)
    version = sa.Column(sa.Integer, default=0)


class ComputeNode(Base, _Model, _SoftDelete):
    """A hypervisor node's resources as reported by its compute."""

    __tablename__ = "compute_nodes"
    __table_args__ = (
        sa.UniqueConstraint(
            "host", "hypervisor_hostname", "deleted",
            name="uniq_compute_nodes0host0hypervisor_hostname0deleted"),
        sa.UniqueConstraint("uuid", name="compute_nodes_uuid_idx"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    service_id = sa.Column(sa.Integer, nullable=True)
    host = sa.Column(sa.String(255), nullable=True)
    uuid = sa.Column(sa.String(36), nullable=True)
    vcpus = sa.Column(sa.Integer, nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    local_gb = sa.Column(sa.Integer, nullable=False)
    vcpus_used = sa.Column(sa.Integer, nullable=False)
    memory_mb_used = sa.Column(sa.Integer, nullable=False)
    local_gb_used = sa.Column(sa.Integer, nullable=False)
    hypervisor_type = sa.Column(MediumText(), nullable=False)
    hypervisor_version = sa.Column(sa.Integer, nullable=False)
    hypervisor_hostname = sa.Column(sa.String(255))
    free_ram_mb = sa.Column(sa.Integer)
    free_disk_gb = sa.Column(sa.Integer)
    current_workload = sa.Column(sa.Integer)
    running_vms = sa.Column(sa.Integer)
    cpu_info = sa.Column(MediumText(), nullable=False)
    disk_available_least = sa.Column(sa.Integer)
    host_ip = sa.Column(sa.String(39))
    supported_instances = sa.Column(sa.Text)
    metrics = sa.Column(sa.Text)
    pci_stats = sa.Column(sa.Text)
    extra_resources = sa.Column(sa.Text)
    stats = sa.Column(sa.Text, default="{}")
    numa_topology = sa.Column(sa.Text)
    ram_allocation_ratio = sa.Column(sa.Float, nullable=True)
    cpu_allocation_ratio = sa.Column(sa.Float, nullable=True)
    disk_allocation_ratio = sa.Column(sa.Float, nullable=True)
    mapped = sa.Column(sa.Integer, nullable=True, default=0)


class Instance(Base, _Model, _SoftDelete):
    """A server."""

    __tablename__ = "instances"
    __table_args__ = (
        sa.Index("instances_project_id_idx", "project_id"),
        sa.Index("instances_project_id_deleted_idx", "project_id", "deleted"),
        sa.Index("instances_reservation_id_idx", "reservation_id"),
        sa.Index("instances_terminated_at_launched_at_idx",
                 "terminated_at", "launched_at"),
        sa.Index("instances_uuid_deleted_idx", "uuid", "deleted"),
        sa.Index("instances_task_state_updated_at_idx",
                 "task_state", "updated_at"),
        sa.Index("instances_host_node_deleted_idx", "host", "node", "deleted"),
        sa.Index("instances_host_deleted_cleaned_idx",
                 "host", "deleted", "cleaned"),
        sa.Index("instances_deleted_created_at_idx", "deleted", "created_at"),
        sa.Index("instances_updated_at_project_id_idx",
                 "updated_at", "project_id"),
        sa.Index("instances_compute_id_deleted_idx", "compute_id", "deleted"),
        sa.UniqueConstraint("uuid", name="uniq_instances0uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    internal_id = sa.Column(sa.Integer)
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    image_ref = sa.Column(sa.String(255))
    kernel_id = sa.Column(sa.String(255))
    ramdisk_id = sa.Column(sa.String(255))
    hostname = sa.Column(sa.String(255))
    launch_index = sa.Column(sa.Integer)
    key_name = sa.Column(sa.String(255))
    key_data = sa.Column(MediumText())
    power_state = sa.Column(sa.Integer)
    vm_state = sa.Column(sa.String(255))
    task_state = sa.Column(sa.String(255))
    memory_mb = sa.Column(sa.Integer)
    vcpus = sa.Column(sa.Integer)
    root_gb = sa.Column(sa.Integer)
    ephemeral_gb = sa.Column(sa.Integer)
    ephemeral_key_uuid = sa.Column(sa.String(36))
    host = sa.Column(sa.String(255))
    node = sa.Column(sa.String(255))
    compute_id = sa.Column(sa.BigInteger())
    instance_type_id = sa.Column(sa.Integer)
    user_data = sa.Column(MediumText())
    reservation_id = sa.Column(sa.String(255))
    launched_at = sa.Column(sa.DateTime)
    terminated_at = sa.Column(sa.DateTime)
    availability_zone = sa.Column(sa.String(255))
    display_name = sa.Column(sa.String(255))
    display_description = sa.Column(sa.String(255))
    launched_on = sa.Column(MediumText())
    locked = sa.Column(sa.Boolean)
    locked_by = sa.Column(sa.Enum("owner", "admin",
                                  name="instances0locked_by"))
    os_type = sa.Column(sa.String(255))
    architecture = sa.Column(sa.String(255))
    vm_mode = sa.Column(sa.String(255))
    uuid = sa.Column(sa.String(36), nullable=False)
    root_device_name = sa.Column(sa.String(255))
    default_ephemeral_device = sa.Column(sa.String(255))
    default_swap_device = sa.Column(sa.String(255))
    config_drive = sa.Column(sa.String(255))
    access_ip_v4 = sa.Column(sa.String(39))
    access_ip_v6 = sa.Column(sa.String(39))
    auto_disk_config = sa.Column(sa.Boolean())
    progress = sa.Column(sa.Integer)
    shutdown_terminate = sa.Column(sa.Boolean(), default=False)
    disable_terminate = sa.Column(sa.Boolean(), default=False)
    cell_name = sa.Column(sa.String(255))
    # Deleted instances whose host-side resources are cleaned up.
    cleaned = sa.Column(sa.Integer, default=0)
    hidden = sa.Column(sa.Boolean, default=False)

    # Callers choose what to load (options(joinedload(...)) or lazy
    # 'select' inside their session), as Nova's expected_attrs do.
    extra = orm.relationship("InstanceExtra", back_populates="instance",
                             uselist=False, viewonly=False)
    # Only live (deleted == 0) items, as Nova's relationships. The user
    # metadata relationship is named ``metadata`` like Nova's; it is added
    # after the class body because declarative reserves that name there.
    system_metadata = orm.relationship(
        "InstanceSystemMetadata", viewonly=True,
        primaryjoin="and_(Instance.uuid == "
                    "InstanceSystemMetadata.instance_uuid, "
                    "InstanceSystemMetadata.deleted == 0)")
    info_cache = orm.relationship("InstanceInfoCache", uselist=False,
                                  back_populates="instance")
    tags = orm.relationship(
        "Tag", primaryjoin="Instance.uuid == foreign(Tag.resource_id)",
        viewonly=True)

    @property
    def name(self):
        """Nova's default instance_name_template, instance-%08x."""
        return "instance-%08x" % self.id


class InstanceExtra(Base, _Model, _SoftDelete):
    """Serialized per-instance blobs (flavor, NUMA, PCI requests, ...)."""

    __tablename__ = "instance_extra"
    __table_args__ = (
        sa.Index("instance_extra_idx", "instance_uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(
        sa.String(36),
        sa.ForeignKey("instances.uuid",
                      name="instance_extra_instance_uuid_fkey"),
        nullable=False)
    device_metadata = sa.Column(sa.Text)
    numa_topology = sa.Column(sa.Text)
    pci_requests = sa.Column(sa.Text)
    flavor = sa.Column(sa.Text)
    vcpu_model = sa.Column(sa.Text)
    migration_context = sa.Column(sa.Text)
    keypairs = sa.Column(sa.Text)
    trusted_certs = sa.Column(sa.Text)
    vpmems = sa.Column(sa.Text)
    resources = sa.Column(sa.Text)

    instance = orm.relationship(Instance, back_populates="extra")


class InstanceSystemMetadata(Base, _Model, _SoftDelete):
    """Key/value pairs about an instance that only the service writes."""

    __tablename__ = "instance_system_metadata"
    __table_args__ = (TABLE_ARGS,)

    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255))
    # Unnamed on purpose: MariaDB then names the constraint
    # instance_system_metadata_ibfk_1 and its index instance_uuid, as Nova's.
    instance_uuid = sa.Column(sa.String(36), sa.ForeignKey("instances.uuid"),
                              nullable=False)


class InstanceMetadata(Base, _Model, _SoftDelete):
    """User-supplied key/value metadata of an instance."""

    __tablename__ = "instance_metadata"
    __table_args__ = (
        sa.Index("instance_metadata_instance_uuid_idx", "instance_uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255))
    value = sa.Column(sa.String(255))
    instance_uuid = sa.Column(
        sa.String(36),
        sa.ForeignKey("instances.uuid",
                      name="instance_metadata_instance_uuid_fkey"))


class InstanceInfoCache(Base, _Model, _SoftDelete):
    """The cached network_info of an instance."""

    __tablename__ = "instance_info_caches"
    __table_args__ = (
        sa.UniqueConstraint("instance_uuid",
                            name="uniq_instance_info_caches0instance_uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    network_info = sa.Column(MediumText())
    instance_uuid = sa.Column(
        sa.String(36),
        sa.ForeignKey("instances.uuid",
                      name="instance_info_caches_instance_uuid_fkey"),
        nullable=False)

    instance = orm.relationship(Instance, back_populates="info_cache")


class InstanceFault(Base, _Model, _SoftDelete):
    """An error recorded against an instance."""

    __tablename__ = "instance_faults"
    __table_args__ = (
        sa.Index("instance_faults_host_idx", "host"),
        sa.Index("instance_faults_instance_uuid_deleted_created_at_idx",
                 "instance_uuid", "deleted", "created_at"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    instance_uuid = sa.Column(
        sa.String(36),
        sa.ForeignKey("instances.uuid",
                      name="fk_instance_faults_instance_uuid"))
    code = sa.Column(sa.Integer(), nullable=False)
    message = sa.Column(sa.String(255))
    details = sa.Column(MediumText())
    host = sa.Column(sa.String(255))


class InstanceAction(Base, _Model, _SoftDelete):
    """A user- or system-initiated action on an instance."""

    __tablename__ = "instance_actions"
    __table_args__ = (
        sa.Index("instance_uuid_idx", "instance_uuid"),
        sa.Index("request_id_idx", "request_id"),
        sa.Index("instance_actions_instance_uuid_updated_at_idx",
                 "instance_uuid", "updated_at"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False,
                   autoincrement=True)
    action = sa.Column(sa.String(255))
    instance_uuid = sa.Column(
        sa.String(36),
        sa.ForeignKey("instances.uuid",
                      name="fk_instance_actions_instance_uuid"))
    request_id = sa.Column(sa.String(255))
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    start_time = sa.Column(sa.DateTime)
    finish_time = sa.Column(sa.DateTime)
    message = sa.Column(sa.String(255))


class InstanceActionEvent(Base, _Model, _SoftDelete):
    """One step (event) of an instance action."""

    __tablename__ = "instance_actions_events"
    __table_args__ = (TABLE_ARGS,)

    id = sa.Column(sa.Integer, primary_key=True, nullable=False,
                   autoincrement=True)
    event = sa.Column(sa.String(255))
    # Unnamed FK: MariaDB names it instance_actions_events_ibfk_1 with an
    # index called action_id, exactly as in upstream databases.
    action_id = sa.Column(sa.Integer, sa.ForeignKey("instance_actions.id"))
    start_time = sa.Column(sa.DateTime)
    finish_time = sa.Column(sa.DateTime)
    result = sa.Column(sa.String(255))
    traceback = sa.Column(sa.Text)
    host = sa.Column(sa.String(255))
    details = sa.Column(sa.Text)


class BlockDeviceMapping(Base, _Model, _SoftDelete):
    """A disk of an instance (image, volume, blank, snapshot, swap)."""

    __tablename__ = "block_device_mapping"
    __table_args__ = (
        sa.Index("snapshot_id", "snapshot_id"),
        sa.Index("volume_id", "volume_id"),
        sa.Index("block_device_mapping_instance_uuid_idx", "instance_uuid"),
        sa.Index("block_device_mapping_instance_uuid_device_name_idx",
                 "instance_uuid", "device_name"),
        sa.Index("block_device_mapping_instance_uuid_volume_id_idx",
                 "instance_uuid", "volume_id"),
        sa.UniqueConstraint("uuid", name="uniq_block_device_mapping0uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    instance_uuid = sa.Column(
        sa.String(36),
        sa.ForeignKey("instances.uuid",
                      name="block_device_mapping_instance_uuid_fkey"))
    uuid = sa.Column(sa.String(36))
    source_type = sa.Column(sa.String(255))
    destination_type = sa.Column(sa.String(255))
    guest_format = sa.Column(sa.String(255))
    device_type = sa.Column(sa.String(255))
    disk_bus = sa.Column(sa.String(255))
    boot_index = sa.Column(sa.Integer)
    device_name = sa.Column(sa.String(255))
    delete_on_termination = sa.Column(sa.Boolean, default=False)
    snapshot_id = sa.Column(sa.String(36))
    volume_id = sa.Column(sa.String(36))
    volume_size = sa.Column(sa.Integer)
    volume_type = sa.Column(sa.String(255))
    image_id = sa.Column(sa.String(36))
    no_device = sa.Column(sa.Boolean)
    connection_info = sa.Column(MediumText())
    tag = sa.Column(sa.String(255))
    attachment_id = sa.Column(sa.String(36))
    encrypted = sa.Column(sa.Boolean, default=False)
    encryption_secret_uuid = sa.Column(sa.String(36))
    encryption_format = sa.Column(sa.String(128))
    encryption_options = sa.Column(sa.String(4096))


class Migration(Base, _Model, _SoftDelete):
    """A move operation (cold/live migration, resize, evacuation)."""

    __tablename__ = "migrations"
    __table_args__ = (
        sa.Index("migrations_instance_uuid_and_status_idx",
                 "deleted", "instance_uuid", "status"),
        # MySQL limits index key length: Nova indexes 100-char prefixes.
        sa.Index("migrations_by_host_nodes_and_status_idx",
                 "deleted", "source_compute", "dest_compute", "source_node",
                 "dest_node", "status",
                 mysql_length={"source_compute": 100, "dest_compute": 100,
                               "source_node": 100, "dest_node": 100}),
        sa.Index("migrations_by_src_host_nodes_and_status_idx",
                 "deleted", "source_compute", "source_node", "status"),
        sa.Index("migrations_by_dest_host_nodes_and_status_idx",
                 "deleted", "dest_compute", "dest_node", "status"),
        sa.Index("migrations_updated_at_idx", "updated_at"),
        sa.Index("migrations_dest_compute_id_deleted_idx",
                 "dest_compute_id", "deleted"),
        sa.UniqueConstraint("uuid", name="migrations_uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    uuid = sa.Column(sa.String(36), nullable=True)
    source_compute = sa.Column(sa.String(255))
    source_node = sa.Column(sa.String(255))
    dest_compute = sa.Column(sa.String(255))
    dest_node = sa.Column(sa.String(255))
    dest_compute_id = sa.Column(sa.BigInteger())
    dest_host = sa.Column(sa.String(255))
    old_instance_type_id = sa.Column(sa.Integer())
    new_instance_type_id = sa.Column(sa.Integer())
    instance_uuid = sa.Column(
        sa.String(36),
        sa.ForeignKey("instances.uuid", name="fk_migrations_instance_uuid"))
    status = sa.Column(sa.String(255))
    migration_type = sa.Column(
        sa.Enum("migration", "resize", "live-migration", "evacuation",
                name="migration_type"),
        nullable=True)
    hidden = sa.Column(sa.Boolean, default=False)
    memory_total = sa.Column(sa.BigInteger, nullable=True)
    memory_processed = sa.Column(sa.BigInteger, nullable=True)
    memory_remaining = sa.Column(sa.BigInteger, nullable=True)
    disk_total = sa.Column(sa.BigInteger, nullable=True)
    disk_processed = sa.Column(sa.BigInteger, nullable=True)
    disk_remaining = sa.Column(sa.BigInteger, nullable=True)
    cross_cell_move = sa.Column(sa.Boolean, default=False)
    user_id = sa.Column(sa.String(255), nullable=True)
    project_id = sa.Column(sa.String(255), nullable=True)


class VirtualInterface(Base, _Model, _SoftDelete):
    """A network port of an instance (tag and order for device metadata)."""

    __tablename__ = "virtual_interfaces"
    __table_args__ = (
        sa.UniqueConstraint("address", "deleted",
                            name="uniq_virtual_interfaces0address0deleted"),
        sa.Index("virtual_interfaces_network_id_idx", "network_id"),
        sa.Index("virtual_interfaces_uuid_idx", "uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    address = sa.Column(sa.String(255))
    network_id = sa.Column(sa.Integer)
    instance_uuid = sa.Column(
        sa.String(36),
        sa.ForeignKey("instances.uuid",
                      name="virtual_interfaces_instance_uuid_fkey"),
        nullable=True)
    uuid = sa.Column(sa.String(36))
    tag = sa.Column(sa.String(255))


class Tag(Base, models.ModelBase):
    """A tag on a server (resource_id = instance uuid); no timestamps."""

    __tablename__ = "tags"
    __table_args__ = (
        sa.Index("tags_tag_idx", "tag"),
        TABLE_ARGS,
    )

    resource_id = sa.Column(sa.String(36), primary_key=True, nullable=False)
    tag = sa.Column(sa.String(80), primary_key=True, nullable=False)


class ConsoleAuthToken(Base, _Model):
    """A console connection token (only its hash is stored)."""

    __tablename__ = "console_auth_tokens"
    __table_args__ = (
        sa.Index("console_auth_tokens_instance_uuid_idx", "instance_uuid"),
        sa.Index("console_auth_tokens_host_expires_idx", "host", "expires"),
        sa.Index("console_auth_tokens_token_hash_instance_uuid_idx",
                 "token_hash", "instance_uuid"),
        sa.UniqueConstraint("token_hash",
                            name="uniq_console_auth_tokens0token_hash"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    token_hash = sa.Column(sa.String(255), nullable=False)
    console_type = sa.Column(sa.String(255), nullable=False)
    host = sa.Column(sa.String(255), nullable=False)
    port = sa.Column(sa.Integer, nullable=False)
    tls_port = sa.Column(sa.Integer, nullable=True)
    internal_access_path = sa.Column(sa.String(255))
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    expires = sa.Column(sa.Integer, nullable=False)
    access_url_base = sa.Column(sa.String(255))


class ShareMapping(Base, _Model):
    """A Manila share attached to an instance."""

    __tablename__ = "share_mapping"
    __table_args__ = (
        sa.Index("share_idx", "share_id"),
        sa.Index("share_mapping_instance_uuid_share_id_idx",
                 "instance_uuid", "share_id"),
        # Nova's names, including their 'key_pairs' typo.
        sa.UniqueConstraint("instance_uuid", "share_id",
                            name="uniq_key_pairs0instance_uuid0share_id"),
        sa.UniqueConstraint("instance_uuid", "tag",
                            name="uniq_key_pairs0instance_uuid0tag"),
        TABLE_ARGS,
    )

    # BIGINT, but SQLite only auto-increments an INTEGER primary key.
    id = sa.Column(sa.BigInteger().with_variant(sa.Integer, "sqlite"),
                   primary_key=True, autoincrement=True, nullable=False)
    uuid = sa.Column(sa.String(36))
    instance_uuid = sa.Column(
        sa.String(36),
        sa.ForeignKey("instances.uuid",
                      name="share_mapping_instance_uuid_fkey"))
    share_id = sa.Column(sa.String(36))
    status = sa.Column(sa.String(32))
    tag = sa.Column(sa.String(48))
    export_location = sa.Column(sa.Text)
    share_proto = sa.Column(sa.String(32))


class TaskLog(Base, _Model, _SoftDelete):
    """Audit of periodic tasks (instance usage audit)."""

    __tablename__ = "task_log"
    __table_args__ = (
        sa.UniqueConstraint(
            "task_name", "host", "period_beginning", "period_ending",
            name="uniq_task_log0task_name0host0period_beginning0period_ending"
        ),
        sa.Index("ix_task_log_period_beginning", "period_beginning"),
        sa.Index("ix_task_log_host", "host"),
        sa.Index("ix_task_log_period_ending", "period_ending"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False,
                   autoincrement=True)
    task_name = sa.Column(sa.String(255), nullable=False)
    state = sa.Column(sa.String(255), nullable=False)
    host = sa.Column(sa.String(255), nullable=False)
    period_beginning = sa.Column(sa.DateTime, default=sa.func.now(),
                                 nullable=False)
    period_ending = sa.Column(sa.DateTime, default=sa.func.now(),
                              nullable=False)
    message = sa.Column(sa.String(255), nullable=False)
    task_items = sa.Column(sa.Integer(), default=0)
    errors = sa.Column(sa.Integer(), default=0)


class InstanceIdMapping(Base, _Model, _SoftDelete):
    """Integer ids for instance uuids (EC2-era, still in the schema)."""

    __tablename__ = "instance_id_mappings"
    __table_args__ = (
        sa.Index("ix_instance_id_mappings_uuid", "uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False,
                   autoincrement=True)
    uuid = sa.Column(sa.String(36), nullable=False)


class PciDevice(Base, _Model, _SoftDelete):
    """A PCI device of a compute node and who uses it."""

    __tablename__ = "pci_devices"
    __table_args__ = (
        sa.Index("ix_pci_devices_compute_node_id_deleted",
                 "compute_node_id", "deleted"),
        sa.Index("ix_pci_devices_instance_uuid_deleted",
                 "instance_uuid", "deleted"),
        sa.Index("ix_pci_devices_compute_node_id_parent_addr_deleted",
                 "compute_node_id", "parent_addr", "deleted"),
        sa.UniqueConstraint(
            "compute_node_id", "address", "deleted",
            name="uniq_pci_devices0compute_node_id0address0deleted"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36))
    compute_node_id = sa.Column(
        sa.Integer,
        sa.ForeignKey("compute_nodes.id",
                      name="pci_devices_compute_node_id_fkey"),
        nullable=False)
    address = sa.Column(sa.String(12), nullable=False)
    vendor_id = sa.Column(sa.String(4), nullable=False)
    product_id = sa.Column(sa.String(4), nullable=False)
    dev_type = sa.Column(sa.String(8), nullable=False)
    dev_id = sa.Column(sa.String(255))
    label = sa.Column(sa.String(255), nullable=False)
    status = sa.Column(sa.String(36), nullable=False)
    extra_info = sa.Column(sa.Text)
    instance_uuid = sa.Column(sa.String(36))
    request_id = sa.Column(sa.String(36))
    numa_node = sa.Column(sa.Integer, nullable=True)
    parent_addr = sa.Column(sa.String(12), nullable=True)


Instance.__mapper__.add_property("metadata", orm.relationship(
    InstanceMetadata, viewonly=True,
    primaryjoin=sa.and_(Instance.uuid == InstanceMetadata.instance_uuid,
                        InstanceMetadata.deleted == 0)))

# Imported last: the shadow tables are built from the tables above.
from keel.db.cell import shadow  # noqa: E402,F401
