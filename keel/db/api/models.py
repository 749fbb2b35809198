"""SQLAlchemy models of the API database, table for table as Nova 34's.

The contract is the schema upstream Nova's own migrations create (names,
types, nullability, indexes, unique constraints), so an existing
``nova_api`` database is used as it is. Class names follow upstream Nova
so code and objects read the same; attribute names are column names.

Placement's old tables (resource_providers, allocations, ...) still exist
in upstream API databases but keel never uses them and does not model them.
"""
from oslo_db.sqlalchemy import models
import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.dialects import mysql

# Nova's tables are InnoDB/utf8 on MySQL; keeping the same options means a
# keel-created database and a Nova-created one are interchangeable.
TABLE_ARGS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8"}


def MediumText():
    """TEXT everywhere, MEDIUMTEXT on MySQL (as Nova: payloads over 64k)."""
    return sa.Text().with_variant(mysql.MEDIUMTEXT(), "mysql")


class Base(orm.DeclarativeBase):
    """Declarative base of the API database only (its own MetaData)."""

    metadata = sa.MetaData()


class _Model(models.TimestampMixin, models.ModelBase):
    """created_at/updated_at plus oslo.db's dict-like helpers."""

    __table_args__ = (TABLE_ARGS,)


class _Named:
    """Mixin giving a readable repr with the primary key."""

    def __repr__(self):
        return f"<{type(self).__name__} id={getattr(self, 'id', None)}>"


class CellMapping(Base, _Model, _Named):
    """Where a cell's database and message queue are."""

    __tablename__ = "cell_mappings"
    __table_args__ = (
        sa.Index("uuid_idx", "uuid"),
        sa.UniqueConstraint("uuid", name="uniq_cell_mappings0uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255))
    transport_url = sa.Column(sa.Text())
    database_connection = sa.Column(sa.Text())
    disabled = sa.Column(sa.Boolean, default=False)

    host_mapping = orm.relationship("HostMapping",
                                    back_populates="cell_mapping")
    instance_mapping = orm.relationship("InstanceMapping",
                                        back_populates="cell_mapping")


class InstanceMapping(Base, _Model, _Named):
    """Which cell an instance lives in (cell_id NULL while building)."""

    __tablename__ = "instance_mappings"
    __table_args__ = (
        sa.Index("instance_uuid_idx", "instance_uuid"),
        sa.Index("project_id_idx", "project_id"),
        sa.Index("instance_mappings_user_id_project_id_idx",
                 "user_id", "project_id"),
        sa.UniqueConstraint("instance_uuid",
                            name="uniq_instance_mappings0instance_uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    cell_id = sa.Column(sa.Integer, sa.ForeignKey("cell_mappings.id"),
                        nullable=True)
    project_id = sa.Column(sa.String(255), nullable=False)
    # Boolean, nullable: NULL means "not known yet" for old records.
    queued_for_delete = sa.Column(sa.Boolean, default=False)
    user_id = sa.Column(sa.String(255), nullable=True)

    # Always wanted with the mapping: the cell is what the mapping is for.
    cell_mapping = orm.relationship("CellMapping", lazy="joined",
                                    back_populates="instance_mapping")


class HostMapping(Base, _Model, _Named):
    """Which cell a compute host belongs to."""

    __tablename__ = "host_mappings"
    __table_args__ = (
        sa.Index("host_idx", "host"),
        sa.UniqueConstraint("host", name="uniq_host_mappings0host"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    cell_id = sa.Column(sa.Integer, sa.ForeignKey("cell_mappings.id"),
                        nullable=False)
    host = sa.Column(sa.String(255), nullable=False)

    cell_mapping = orm.relationship("CellMapping", lazy="joined",
                                    back_populates="host_mapping")


class RequestSpec(Base, _Model, _Named):
    """The serialized RequestSpec object of an instance."""

    __tablename__ = "request_specs"
    __table_args__ = (
        sa.Index("request_spec_instance_uuid_idx", "instance_uuid"),
        sa.UniqueConstraint("instance_uuid",
                            name="uniq_request_specs0instance_uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36), nullable=False)
    spec = sa.Column(MediumText(), nullable=False)


class Flavors(Base, _Model, _Named):
    """A flavor (instance type)."""

    __tablename__ = "flavors"
    __table_args__ = (
        sa.UniqueConstraint("flavorid", name="uniq_flavors0flavorid"),
        sa.UniqueConstraint("name", name="uniq_flavors0name"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(255), nullable=False)
    memory_mb = sa.Column(sa.Integer, nullable=False)
    vcpus = sa.Column(sa.Integer, nullable=False)
    root_gb = sa.Column(sa.Integer)
    ephemeral_gb = sa.Column(sa.Integer)
    flavorid = sa.Column(sa.String(255), nullable=False)
    swap = sa.Column(sa.Integer, nullable=False, default=0)
    rxtx_factor = sa.Column(sa.Float, default=1)
    vcpu_weight = sa.Column(sa.Integer)
    disabled = sa.Column(sa.Boolean, default=False)
    is_public = sa.Column(sa.Boolean, default=True)
    description = sa.Column(sa.Text)

    extra_specs = orm.relationship("FlavorExtraSpecs",
                                   back_populates="flavor",
                                   cascade="all, delete-orphan")
    projects = orm.relationship("FlavorProjects", back_populates="flavor",
                                cascade="all, delete-orphan")


class FlavorExtraSpecs(Base, _Model, _Named):
    __tablename__ = "flavor_extra_specs"
    __table_args__ = (
        sa.Index("flavor_extra_specs_flavor_id_key_idx", "flavor_id", "key"),
        sa.UniqueConstraint("flavor_id", "key",
                            name="uniq_flavor_extra_specs0flavor_id0key"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255))
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey("flavors.id"),
                          nullable=False)

    flavor = orm.relationship(Flavors, back_populates="extra_specs")


class FlavorProjects(Base, _Model, _Named):
    """Projects that may use a private flavor."""

    __tablename__ = "flavor_projects"
    __table_args__ = (
        sa.UniqueConstraint("flavor_id", "project_id",
                            name="uniq_flavor_projects0flavor_id0project_id"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    flavor_id = sa.Column(sa.Integer, sa.ForeignKey("flavors.id"),
                          nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)

    flavor = orm.relationship(Flavors, back_populates="projects")


class BuildRequest(Base, _Model, _Named):
    """An instance accepted by the API but not yet in a cell."""

    __tablename__ = "build_requests"
    __table_args__ = (
        sa.Index("build_requests_instance_uuid_idx", "instance_uuid"),
        sa.Index("build_requests_project_id_idx", "project_id"),
        sa.UniqueConstraint("instance_uuid",
                            name="uniq_build_requests0instance_uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    instance_uuid = sa.Column(sa.String(36))
    project_id = sa.Column(sa.String(255), nullable=False)
    instance = sa.Column(MediumText())
    block_device_mappings = sa.Column(MediumText())
    tags = sa.Column(sa.Text())


class KeyPair(Base, _Model, _Named):
    """An SSH or x509 key pair of a user."""

    __tablename__ = "key_pairs"
    __table_args__ = (
        sa.UniqueConstraint("user_id", "name",
                            name="uniq_key_pairs0user_id0name"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    name = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    fingerprint = sa.Column(sa.String(255))
    public_key = sa.Column(sa.Text())
    type = sa.Column(sa.Enum("ssh", "x509", name="keypair_types"),
                     nullable=False, server_default="ssh")


class Aggregate(Base, _Model, _Named):
    """A host aggregate."""

    __tablename__ = "aggregates"
    __table_args__ = (
        sa.Index("aggregate_uuid_idx", "uuid"),
        sa.UniqueConstraint("name", name="uniq_aggregate0name"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    uuid = sa.Column(sa.String(36))
    name = sa.Column(sa.String(255))

    _hosts = orm.relationship("AggregateHost", back_populates="aggregate",
                              cascade="all, delete-orphan")
    _metadata = orm.relationship("AggregateMetadata",
                                 back_populates="aggregate",
                                 cascade="all, delete-orphan")


class AggregateHost(Base, _Model, _Named):
    __tablename__ = "aggregate_hosts"
    __table_args__ = (
        sa.UniqueConstraint("host", "aggregate_id",
                            name="uniq_aggregate_hosts0host0aggregate_id"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    host = sa.Column(sa.String(255))
    aggregate_id = sa.Column(sa.Integer, sa.ForeignKey("aggregates.id"),
                             nullable=False)

    aggregate = orm.relationship(Aggregate, back_populates="_hosts")


class AggregateMetadata(Base, _Model, _Named):
    __tablename__ = "aggregate_metadata"
    __table_args__ = (
        sa.UniqueConstraint("aggregate_id", "key",
                            name="uniq_aggregate_metadata0aggregate_id0key"),
        sa.Index("aggregate_metadata_key_idx", "key"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    key = sa.Column(sa.String(255), nullable=False)
    value = sa.Column(sa.String(255), nullable=False)
    aggregate_id = sa.Column(sa.Integer, sa.ForeignKey("aggregates.id"),
                             nullable=False)

    aggregate = orm.relationship(Aggregate, back_populates="_metadata")


class InstanceGroup(Base, _Model, _Named):
    """A server group."""

    __tablename__ = "instance_groups"
    __table_args__ = (
        sa.UniqueConstraint("uuid", name="uniq_instance_groups0uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, autoincrement=True)
    user_id = sa.Column(sa.String(255))
    project_id = sa.Column(sa.String(255))
    uuid = sa.Column(sa.String(36), nullable=False)
    name = sa.Column(sa.String(255))

    _policies = orm.relationship("InstanceGroupPolicy",
                                 back_populates="group",
                                 cascade="all, delete-orphan")
    _members = orm.relationship("InstanceGroupMember",
                                back_populates="group",
                                cascade="all, delete-orphan")


class InstanceGroupPolicy(Base, _Model, _Named):
    __tablename__ = "instance_group_policy"
    __table_args__ = (
        sa.Index("instance_group_policy_policy_idx", "policy"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    policy = sa.Column(sa.String(255))
    rules = sa.Column(sa.Text)
    group_id = sa.Column(sa.Integer, sa.ForeignKey("instance_groups.id"),
                         nullable=False)

    group = orm.relationship(InstanceGroup, back_populates="_policies")


class InstanceGroupMember(Base, _Model, _Named):
    __tablename__ = "instance_group_member"
    __table_args__ = (
        sa.Index("instance_group_member_instance_idx", "instance_uuid"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    instance_uuid = sa.Column(sa.String(255))
    group_id = sa.Column(sa.Integer, sa.ForeignKey("instance_groups.id"),
                         nullable=False)

    group = orm.relationship(InstanceGroup, back_populates="_members")


class Quota(Base, _Model, _Named):
    """A project's limit for one resource (NULL project = none)."""

    __tablename__ = "quotas"
    __table_args__ = (
        sa.UniqueConstraint("project_id", "resource",
                            name="uniq_quotas0project_id0resource"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    project_id = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer)


class ProjectUserQuota(Base, _Model, _Named):
    """A user-in-project limit for one resource."""

    __tablename__ = "project_user_quotas"
    __table_args__ = (
        sa.UniqueConstraint(
            "user_id", "project_id", "resource",
            name="uniq_project_user_quotas0user_id0project_id0resource"),
        sa.Index("project_user_quotas_project_id_idx", "project_id"),
        sa.Index("project_user_quotas_user_id_idx", "user_id"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True, nullable=False)
    project_id = sa.Column(sa.String(255), nullable=False)
    user_id = sa.Column(sa.String(255), nullable=False)
    resource = sa.Column(sa.String(255), nullable=False)
    hard_limit = sa.Column(sa.Integer)


class QuotaClass(Base, _Model, _Named):
    """A limit of a quota class ('default' is the only one Nova uses)."""

    __tablename__ = "quota_classes"
    __table_args__ = (
        sa.Index("quota_classes_class_name_idx", "class_name"),
        TABLE_ARGS,
    )

    id = sa.Column(sa.Integer, primary_key=True)
    class_name = sa.Column(sa.String(255))
    resource = sa.Column(sa.String(255))
    hard_limit = sa.Column(sa.Integer)
