"""Objects: RequestSpec and what it carries to the scheduler: Destination,
SchedulerRetries, SchedulerLimits, RequestGroup, RequestLevelParams.

request_specs.spec holds the JSON of the RequestSpec primitive, exactly as
Nova stores it, minus the per-request parts Nova does not persist.
"""
from oslo_serialization import jsonutils
import sqlalchemy as sa

from keel.db.api import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

# Only meaningful for one scheduling request, so never stored.
_NOT_PERSISTED_NONE = ("retry", "requested_destination",
                       "requested_resources", "ignore_hosts")
_NOT_PERSISTED_DROP = ("network_metadata", "requested_networks",
                       "request_level_params")


@base.KeelObjectRegistry.register
class RequestSpec(base.KeelObject):
    VERSION = '1.15'

    fields = {
        'availability_zone': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('Flavor'),
        'force_hosts': fields.ListOfStringsField(nullable=True),
        'force_nodes': fields.ListOfStringsField(nullable=True),
        'id': fields.IntegerField(),
        'ignore_hosts': fields.ListOfStringsField(nullable=True),
        'image': fields.ObjectField('ImageMeta', nullable=True),
        'instance_group': fields.ObjectField('InstanceGroup', nullable=True),
        'instance_uuid': fields.UUIDField(),
        'is_bfv': fields.BooleanField(),
        'limits': fields.ObjectField('SchedulerLimits', nullable=True),
        'network_metadata': fields.ObjectField('NetworkMetadata'),
        'num_instances': fields.IntegerField(default=1),
        'numa_topology':
            fields.ObjectField('InstanceNUMATopology', nullable=True),
        'pci_requests':
            fields.ObjectField('InstancePCIRequests', nullable=True),
        'project_id': fields.StringField(nullable=True),
        'request_level_params': fields.ObjectField('RequestLevelParams'),
        'requested_destination':
            fields.ObjectField('Destination', nullable=True),
        'requested_networks': fields.ObjectField('NetworkRequestList'),
        'requested_resources':
            fields.ListOfObjectsField('RequestGroup', nullable=True),
        'retry': fields.ObjectField('SchedulerRetries', nullable=True),
        'scheduler_hints': fields.DictOfListOfStringsField(nullable=True),
        'security_groups': fields.ObjectField('SecurityGroupList'),
        'user_id': fields.StringField(nullable=True),
    }

    def _set_transient_defaults(self):
        """Fields not persisted get their empty values after a load."""
        from keel import objects

        if not self.obj_attr_is_set("network_metadata"):
            self.network_metadata = objects.NetworkMetadata(
                physnets=set(), tunneled=False)
        if not self.obj_attr_is_set("requested_networks"):
            self.requested_networks = objects.NetworkRequestList(objects=[])
        if not self.obj_attr_is_set("request_level_params"):
            self.request_level_params = objects.RequestLevelParams()
        for name in _NOT_PERSISTED_NONE:
            if not self.obj_attr_is_set(name):
                setattr(self, name, None)

    @classmethod
    def _from_db_object(cls, context, spec, row):
        stored = cls.obj_from_primitive(jsonutils.loads(row.spec))
        for name in spec.fields:
            if name != "id" and stored.obj_attr_is_set(name):
                setattr(spec, name, getattr(stored, name))
        spec.id = row.id
        spec.instance_uuid = row.instance_uuid
        spec._set_transient_defaults()
        spec._context = context
        spec.obj_reset_changes(recursive=True)
        return spec

    def _spec_blob(self):
        """The JSON stored in request_specs.spec: this spec's primitive
        without what is never persisted. The same primitive a pruned
        clone would give (Nova prunes an obj_clone), edited in the
        primitive instead: the deep copy of the whole tree (flavor, image,
        ...) was ~7% of a POST /servers' CPU."""
        group = self.instance_group \
            if self.obj_attr_is_set("instance_group") else None
        if group:
            return jsonutils.dumps(self._pruned_clone().obj_to_primitive())
        prim = self.obj_to_primitive()
        data = prim["nova_object.data"]
        changes = set(prim.get("nova_object.changes") or ())
        for name in _NOT_PERSISTED_NONE:
            if self.obj_attr_is_set(name) and getattr(self, name):
                # As setting it to None on the clone: now a change.
                data[name] = None
                changes.add(name)
        for name in _NOT_PERSISTED_DROP + ("id",):
            data.pop(name, None)
            changes.discard(name)
        prim.pop("nova_object.changes", None)
        if changes:
            prim["nova_object.changes"] = list(changes)
        return jsonutils.dumps(prim)

    def _pruned_clone(self):
        spec = self.obj_clone()
        if spec.obj_attr_is_set("instance_group") and spec.instance_group:
            # Members and hosts are looked up fresh; don't freeze them.
            spec.instance_group.members = None
            spec.instance_group.hosts = None
        for name in _NOT_PERSISTED_NONE:
            if spec.obj_attr_is_set(name) and getattr(spec, name):
                setattr(spec, name, None)
        for name in _NOT_PERSISTED_DROP:
            if spec.obj_attr_is_set(name):
                delattr(spec, name)
        if spec.obj_attr_is_set("id"):
            delattr(spec, "id")
        return spec

    @classmethod
    def from_components(cls, context, instance_uuid, image, flavor,
                        numa_topology, pci_requests, filter_properties,
                        instance_group, availability_zone,
                        security_groups=None, project_id=None, user_id=None,
                        port_resource_requests=None,
                        request_level_params=None):
        """Build the spec of one new instance from what the API knows."""
        from keel import objects

        filter_properties = filter_properties or {}
        spec = cls(context, num_instances=1, instance_uuid=instance_uuid,
                   flavor=flavor, numa_topology=numa_topology,
                   pci_requests=pci_requests,
                   project_id=project_id or context.project_id,
                   user_id=user_id or context.user_id,
                   availability_zone=availability_zone,
                   instance_group=instance_group, is_bfv=False)
        if isinstance(image, dict):
            image = objects.ImageMeta.from_dict(image)
        spec.image = image
        hints = filter_properties.get("scheduler_hints") or {}
        # Hints travel as lists of strings, whatever the API accepted.
        spec.scheduler_hints = {
            k: [str(x) for x in v] if isinstance(v, (list, tuple))
            else [str(v)] for k, v in hints.items()}
        for name in ("force_hosts", "force_nodes", "ignore_hosts"):
            value = filter_properties.get(name)
            if isinstance(value, str):
                value = [value]
            setattr(spec, name, value)
        spec.retry = None
        limits = filter_properties.get("limits")
        spec.limits = (objects.SchedulerLimits.from_dict(limits)
                       if limits else None)
        spec.security_groups = security_groups or \
            objects.SecurityGroupList(objects=[])
        spec.requested_resources = list(port_resource_requests or [])
        spec.request_level_params = request_level_params or \
            objects.RequestLevelParams()
        spec.requested_destination = None
        spec._set_transient_defaults()
        return spec

    def reset_forced_destinations(self):
        """Forced hosts/nodes apply to the first placement only (moves
        must be free to go elsewhere)."""
        self.force_hosts = None
        self.force_nodes = None
        if self.obj_attr_is_set("requested_destination") and \
                self.requested_destination is not None:
            self.requested_destination = None

    def ensure_project_and_user_id(self, instance):
        if not self.obj_attr_is_set("project_id") or self.project_id is None:
            self.project_id = instance.project_id
        if not self.obj_attr_is_set("user_id") or self.user_id is None:
            self.user_id = instance.user_id

    def get_scheduler_hint(self, hint_name, default=None):
        hints = self.scheduler_hints if self.obj_attr_is_set(
            "scheduler_hints") else None
        value = (hints or {}).get(hint_name, default)
        if isinstance(value, list) and len(value) == 1:
            return value[0]
        return value

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        with h.api_reader(context) as s:
            row = s.execute(sa.select(models.RequestSpec).filter_by(
                instance_uuid=instance_uuid)).scalars().first()
            if row is None:
                raise exception.RequestSpecNotFound(
                    instance_uuid=instance_uuid)
            return cls._from_db_object(context, cls(), row)

    @base.remotable_classmethod
    def get_by_instance_uuids(cls, context, instance_uuids):
        with h.api_reader(context) as s:
            rows = s.execute(sa.select(models.RequestSpec).where(
                models.RequestSpec.instance_uuid.in_(instance_uuids))
                .order_by(models.RequestSpec.id)).scalars().all()
            return [cls._from_db_object(context, cls(), r) for r in rows]

    @base.remotable
    def create(self):
        h.check_not_created(self)
        with h.api_writer(self._context) as s:
            row = models.RequestSpec(instance_uuid=self.instance_uuid,
                                     spec=self._spec_blob())
            s.add(row)
            s.flush()
            self.id = row.id
        self.obj_reset_changes(recursive=True)

    @base.remotable
    def save(self):
        if not self.obj_what_changed():
            return
        with h.api_writer(self._context) as s:
            row = s.execute(sa.select(models.RequestSpec).filter_by(
                instance_uuid=self.instance_uuid)).scalars().first()
            if row is None:
                raise exception.RequestSpecNotFound(
                    instance_uuid=self.instance_uuid)
            row.spec = self._spec_blob()
        self.obj_reset_changes(recursive=True)

    @base.remotable
    def destroy(self):
        with h.api_writer(self._context) as s:
            gone = s.execute(sa.delete(models.RequestSpec).filter_by(
                instance_uuid=self.instance_uuid)).rowcount
        if not gone:
            raise exception.RequestSpecNotFound(
                instance_uuid=self.instance_uuid)


@base.KeelObjectRegistry.register
class Destination(base.KeelObject):
    VERSION = '1.4'

    fields = {
        'aggregates': fields.ListOfStringsField(nullable=True),
        'allow_cross_cell_move': fields.BooleanField(default=False),
        'cell': fields.ObjectField('CellMapping', nullable=True),
        'forbidden_aggregates': fields.SetOfStringsField(nullable=True),
        'host': fields.StringField(),
        'node': fields.StringField(nullable=True),
    }


@base.KeelObjectRegistry.register
class SchedulerRetries(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'hosts': fields.ObjectField('ComputeNodeList'),
        'num_attempts': fields.IntegerField(),
    }


@base.KeelObjectRegistry.register
class SchedulerLimits(base.KeelObject):
    """Resource limits a host reported for one scheduling decision."""
    VERSION = '1.0'

    fields = {
        'disk_gb': fields.IntegerField(nullable=True),
        'memory_mb': fields.IntegerField(nullable=True),
        'numa_topology':
            fields.ObjectField('NUMATopologyLimits', nullable=True),
        'vcpu': fields.IntegerField(nullable=True),
    }

    @classmethod
    def from_dict(cls, limits_dict):
        limits_dict = limits_dict or {}
        return cls(**{name: limits_dict.get(name) for name in cls.fields})

    def to_dict(self):
        return {name: getattr(self, name) for name in self.fields
                if self.obj_attr_is_set(name) and
                getattr(self, name) is not None}


@base.KeelObjectRegistry.register
class RequestGroup(base.KeelObject):
    VERSION = '1.3'

    fields = {
        'aggregates': fields.ListOfListsOfStringsField(default=[]),
        'forbidden_aggregates': fields.SetOfStringsField(default=set()),
        'forbidden_traits': fields.SetOfStringsField(default=set()),
        'in_tree': fields.UUIDField(nullable=True),
        'provider_uuids': fields.ListOfUUIDField(default=[]),
        'requester_id': fields.StringField(nullable=True),
        'required_traits': fields.SetOfStringsField(default=set()),
        'resources': fields.DictOfIntegersField(default={}),
        'use_same_provider': fields.BooleanField(default=True),
    }


@base.KeelObjectRegistry.register
class RequestLevelParams(base.KeelObject):
    VERSION = '1.1'

    fields = {
        'root_forbidden': fields.SetOfStringsField(default=set()),
        'root_required': fields.SetOfStringsField(default=set()),
        'same_subtree': fields.ListOfListsOfStringsField(default=[]),
    }
