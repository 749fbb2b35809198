"""Object: Instance (the instances table and what hangs off it:
instance_extra blobs, metadata, system metadata, info cache, tags);
InstanceList is in keel.objects.instance_list."""
import datetime

import netaddr
from oslo_serialization import jsonutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
from oslo_versionedobjects import fields as ovoo_fields
import sqlalchemy as sa

from keel.conf import CONF
from keel.db.cell import models
from keel import exception
from keel import notifications
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields
from keel.objects import instance_db

# Blobs kept in instance_extra as JSON of the object primitive.
_EXTRA_BLOBS = {
    "numa_topology": "InstanceNUMATopology",
    "pci_requests": "InstancePCIRequests",
    "vcpu_model": "VirtCPUModel",
    "migration_context": "MigrationContext",
    "keypairs": "KeyPairList",
    "device_metadata": "InstanceDeviceMetadata",
    "trusted_certs": "TrustedCerts",
    "resources": "ResourceList",
}
_FLAVORS = ("flavor", "old_flavor", "new_flavor")
INSTANCE_EXTRA_FIELDS = tuple(_EXTRA_BLOBS) + ("flavor",)
# Fields loaded only when asked for with expected_attrs.
INSTANCE_OPTIONAL_ATTRS = (
    "metadata", "system_metadata", "info_cache", "security_groups",
    "pci_devices", "tags", "fault", "flavor", "old_flavor", "new_flavor",
    "ec2_ids", "migration_context", "keypairs", "device_metadata",
    "trusted_certs", "resources", "services", "numa_topology",
    "pci_requests", "vcpu_model")
# Loaded by default by API lookups, as Nova's.
INSTANCE_DEFAULT_FIELDS = ("metadata", "system_metadata", "info_cache",
                           "security_groups")
# Fields that are not columns of instances.
_NOT_COLUMNS = set(INSTANCE_OPTIONAL_ATTRS) | {"deleted", "cleaned"}


def _expand(expected_attrs):
    """Nova's 'flavor' implies old/new flavor; extra blobs come together."""
    attrs = set(expected_attrs or ())
    if "flavor" in attrs:
        attrs.update(_FLAVORS)
    return attrs


def _obj_from_blob(name, blob):
    from keel import objects
    if blob is None:
        return None
    prim = jsonutils.loads(blob) if isinstance(blob, str) else blob
    if prim is None:
        return None
    return getattr(objects, name).obj_from_primitive(prim)


def _blob(obj):
    return None if obj is None else jsonutils.dumps(obj.obj_to_primitive())


@base.KeelObjectRegistry.register
class Instance(base.KeelPersistentObject, base.KeelObject,
               base.KeelObjectDictCompat):
    VERSION = '2.8'

    fields = {
        'access_ip_v4': fields.IPV4AddressField(nullable=True),
        'access_ip_v6': fields.IPV6AddressField(nullable=True),
        'architecture': fields.StringField(nullable=True),
        'auto_disk_config': fields.BooleanField(default=False),
        'availability_zone': fields.StringField(nullable=True),
        'cell_name': fields.StringField(nullable=True),
        'cleaned': fields.BooleanField(default=False),
        'compute_id': fields.IntegerField(nullable=True),
        'config_drive': fields.StringField(nullable=True),
        'default_ephemeral_device': fields.StringField(nullable=True),
        'default_swap_device': fields.StringField(nullable=True),
        'device_metadata':
            fields.ObjectField('InstanceDeviceMetadata', nullable=True),
        'disable_terminate': fields.BooleanField(default=False),
        'display_description': fields.StringField(nullable=True),
        'display_name': fields.StringField(nullable=True),
        'ec2_ids': fields.ObjectField('EC2Ids'),
        'ephemeral_gb': fields.IntegerField(nullable=True),
        'ephemeral_key_uuid': fields.UUIDField(nullable=True),
        'fault': fields.ObjectField('InstanceFault', nullable=True),
        'flavor': fields.ObjectField('Flavor'),
        'hidden': fields.BooleanField(default=False),
        'host': fields.StringField(nullable=True),
        'hostname': fields.StringField(nullable=True),
        'id': fields.IntegerField(),
        'image_ref': fields.StringField(nullable=True),
        'info_cache': fields.ObjectField('InstanceInfoCache', nullable=True),
        'instance_type_id': fields.IntegerField(nullable=True),
        'kernel_id': fields.StringField(nullable=True),
        'key_data': fields.StringField(nullable=True),
        'key_name': fields.StringField(nullable=True),
        'keypairs': fields.ObjectField('KeyPairList'),
        'launch_index': fields.IntegerField(nullable=True),
        'launched_at': fields.DateTimeField(nullable=True),
        'launched_on': fields.StringField(nullable=True),
        'locked': fields.BooleanField(default=False),
        'locked_by': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(nullable=True),
        'metadata': fields.DictOfStringsField(),
        'migration_context':
            fields.ObjectField('MigrationContext', nullable=True),
        'new_flavor': fields.ObjectField('Flavor', nullable=True),
        'node': fields.StringField(nullable=True),
        'numa_topology':
            fields.ObjectField('InstanceNUMATopology', nullable=True),
        'old_flavor': fields.ObjectField('Flavor', nullable=True),
        'os_type': fields.StringField(nullable=True),
        'pci_devices': fields.ObjectField('PciDeviceList', nullable=True),
        'pci_requests':
            fields.ObjectField('InstancePCIRequests', nullable=True),
        'power_state': fields.IntegerField(nullable=True),
        'progress': fields.IntegerField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'ramdisk_id': fields.StringField(nullable=True),
        'reservation_id': fields.StringField(nullable=True),
        'resources': fields.ObjectField('ResourceList', nullable=True),
        'root_device_name': fields.StringField(nullable=True),
        'root_gb': fields.IntegerField(nullable=True),
        'security_groups': fields.ObjectField('SecurityGroupList'),
        'services': fields.ObjectField('ServiceList'),
        'shutdown_terminate': fields.BooleanField(default=False),
        'system_metadata': fields.DictOfNullableStringsField(),
        'tags': fields.ObjectField('TagList'),
        'task_state': fields.StringField(nullable=True),
        'terminated_at': fields.DateTimeField(nullable=True),
        'trusted_certs': fields.ObjectField('TrustedCerts', nullable=True),
        'user_data': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
        'vcpu_model': fields.ObjectField('VirtCPUModel', nullable=True),
        'vcpus': fields.IntegerField(nullable=True),
        'vm_mode': fields.StringField(nullable=True),
        'vm_state': fields.StringField(nullable=True),
    }

    obj_extra_fields = ['name']

    # Fields added by each version, dropped when backporting (Nova's list).
    _ADDED_IN = {(2, 1): ["services"], (2, 2): ["keypairs"],
                 (2, 3): ["device_metadata"], (2, 4): ["trusted_certs"],
                 (2, 6): ["hidden"], (2, 7): ["resources"],
                 (2, 8): ["compute_id"]}

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        base.drop_newer_fields(primitive, target_version, self._ADDED_IN)

    @property
    def image_meta(self):
        from keel.objects import image_meta
        return image_meta.ImageMeta.from_instance(self)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._orig_metadata = {}
        self._orig_system_metadata = {}

    @property
    def name(self):
        """[DEFAULT]/instance_name_template filled with the id (or, for
        templates like "uuid-%(uuid)s", with the loaded fields); an instance
        not yet in a database has no name."""
        template = CONF.instance_name_template
        if not self.obj_attr_is_set("id"):
            return ""
        try:
            return template % self.id
        except TypeError:
            info = {k: getattr(self, k) for k in self.fields
                    if self.obj_attr_is_set(k)}
            try:
                return template % info
            except KeyError:
                return self.uuid

    def _track_metadata(self):
        if self.obj_attr_is_set("metadata"):
            self._orig_metadata = dict(self.metadata)
        if self.obj_attr_is_set("system_metadata"):
            self._orig_system_metadata = dict(self.system_metadata)

    @classmethod
    def _obj_from_primitive(cls, context, objver, primitive):
        self = super()._obj_from_primitive(context, objver, primitive)
        # What arrived is the baseline; sent changes are in _changed_fields.
        self._track_metadata()
        return self

    def __deepcopy__(self, memo):
        clone = super().__deepcopy__(memo)
        clone._orig_metadata = dict(self._orig_metadata)
        clone._orig_system_metadata = dict(self._orig_system_metadata)
        return clone

    def obj_reset_changes(self, fields=None, recursive=False):
        super().obj_reset_changes(fields, recursive=recursive)
        # Dict fields change in place; keep a copy to diff against.
        if fields is None or "metadata" in fields:
            if self.obj_attr_is_set("metadata"):
                self._orig_metadata = dict(self.metadata)
        if fields is None or "system_metadata" in fields:
            if self.obj_attr_is_set("system_metadata"):
                self._orig_system_metadata = dict(self.system_metadata)

    def obj_what_changed(self):
        changes = set(super().obj_what_changed())
        if (self.obj_attr_is_set("metadata") and
                self.metadata != getattr(self, "_orig_metadata", {})):
            changes.add("metadata")
        if (self.obj_attr_is_set("system_metadata") and
                self.system_metadata != getattr(
                    self, "_orig_system_metadata", {})):
            changes.add("system_metadata")
        return changes

    @staticmethod
    def _from_db_object(context, instance, row, expected_attrs=None):
        """Fill ``instance`` from a row loaded with load_options()."""
        from keel import objects

        expected = _expand(expected_attrs)
        _fill_columns(instance, row)
        if "metadata" in expected:
            instance.metadata = {
                m.key: m.value for m in instance_db.related(row, "metadata")}
        if "system_metadata" in expected:
            instance.system_metadata = {
                m.key: m.value
                for m in instance_db.related(row, "system_metadata")}
        if "info_cache" in expected:
            cache = None
            if row.info_cache is not None and not row.info_cache.deleted:
                cache = objects.InstanceInfoCache._from_db_object(
                    context, objects.InstanceInfoCache(), row.info_cache)
            instance.info_cache = cache
        if "tags" in expected:
            instance.tags = base.obj_make_list(
                context, objects.TagList(context), objects.Tag, row.tags)
        if "security_groups" in expected:
            # Not persisted by keel (Neutron owns security groups).
            instance.security_groups = objects.SecurityGroupList(objects=[])
        if "pci_devices" in expected:
            instance.pci_devices = objects.PciDeviceList(objects=[])
        if "services" in expected:
            instance.services = objects.ServiceList(objects=[])
        extra = row.extra
        if extra is not None:
            for name, objname in _EXTRA_BLOBS.items():
                if name in expected:
                    value = _obj_from_blob(objname, getattr(extra, name))
                    if name == "keypairs" and value is None:
                        value = objects.KeyPairList(objects=[])
                    setattr(instance, name, value)
            if expected & set(_FLAVORS) and extra.flavor:
                flavors = jsonutils.loads(extra.flavor)
                for key, name in (("cur", "flavor"), ("old", "old_flavor"),
                                  ("new", "new_flavor")):
                    prim = flavors.get(key)
                    flavor = (objects.Flavor.obj_from_primitive(prim)
                              if prim else None)
                    # Very old embedded flavors lack these two fields.
                    if flavor is not None:
                        if not flavor.obj_attr_is_set("disabled"):
                            flavor.disabled = False
                        if not flavor.obj_attr_is_set("is_public"):
                            flavor.is_public = True
                    setattr(instance, name, flavor)
        instance._context = context
        # Stored blobs may carry their old change lists; a load is clean.
        instance.obj_reset_changes(recursive=True)
        return instance

    def obj_load_attr(self, attrname):
        if attrname not in INSTANCE_OPTIONAL_ATTRS:
            raise exception.ObjectActionError(
                action="obj_load_attr",
                reason="attribute %s not lazy-loadable" % attrname)
        if not self._context:
            raise exception.OrphanedObjectError(method="obj_load_attr",
                                                objtype=self.obj_name())
        if attrname == "fault":
            from keel.objects import instance_fault
            self.fault = instance_fault.InstanceFault.get_latest_for_instance(
                self._context, self.uuid)
        elif attrname == "ec2_ids":
            from keel.objects import ec2
            self.ec2_ids = ec2.EC2Ids(instance_id="i-%08x" % self.id)
        else:
            fresh = self.get_by_uuid(self._context, self.uuid,
                                     expected_attrs=[attrname])
            for name in _expand([attrname]):
                if fresh.obj_attr_is_set(name):
                    setattr(self, name, getattr(fresh, name))
        self.obj_reset_changes([attrname])

    @base.remotable_classmethod
    def get_by_uuid(cls, context, uuid, expected_attrs=None, use_slave=False):
        with h.cell_reader(context) as s:
            row = instance_db.get_by_uuid(s, context, uuid,
                                          _expand(expected_attrs))
            inst = cls._from_db_object(context, cls(), row, expected_attrs)
        if "fault" in (expected_attrs or ()):
            inst.obj_load_attr("fault")
        return inst

    @base.remotable_classmethod
    def get_by_id(cls, context, inst_id, expected_attrs=None):
        with h.cell_reader(context) as s:
            row = instance_db.get_by_id(s, context, inst_id,
                                        _expand(expected_attrs))
            return cls._from_db_object(context, cls(), row, expected_attrs)

    def _extra_values(self, names, stored_flavor=None):
        """instance_extra column values for the named fields. Flavors not
        loaded on this object keep what ``stored_flavor`` (the current
        extra.flavor JSON) holds, so saving new_flavor never drops cur."""
        values = {}
        for name in names:
            if name in _EXTRA_BLOBS:
                values[name] = _blob(getattr(self, name))
        if set(names) & set(_FLAVORS):
            stored = jsonutils.loads(stored_flavor) if stored_flavor else {}
            blob = {}
            for key, name in zip(("cur", "old", "new"), _FLAVORS):
                if self.obj_attr_is_set(name):
                    value = getattr(self, name)
                    blob[key] = (value.obj_to_primitive()
                                 if value is not None else None)
                else:
                    blob[key] = stored.get(key)
            values["flavor"] = jsonutils.dumps(blob)
        return values

    @base.remotable
    @h.retry_on_deadlock
    def create(self):
        h.check_not_created(self)
        if self.obj_attr_is_set("deleted") and self.deleted:
            raise exception.ObjectActionError(action="create",
                                              reason="already deleted")
        changes = self.obj_get_changes()
        values = h.changes_for_db(self, models.Instance, skip=_NOT_COLUMNS)
        values.setdefault("uuid", changes.get("uuid") or
                          uuidutils.generate_uuid())
        values["cleaned"] = int(bool(changes.get("cleaned", False)))
        for name in ("access_ip_v4", "access_ip_v6"):
            if values.get(name) is not None:
                values[name] = str(values[name])
        extra = self._extra_values(
            [n for n in _EXTRA_BLOBS if self.obj_attr_is_set(n)] +
            [n for n in _FLAVORS if self.obj_attr_is_set(n)])
        uuid = values["uuid"]
        cache = changes.get("info_cache")
        network_info = "[]"
        if cache is not None and cache.obj_attr_is_set("network_info") \
                and cache.network_info is not None:
            network_info = fields.NetworkModel.to_primitive(
                cache, "network_info", cache.network_info)
        tags = sorted(tag.tag for tag in (changes.get("tags") or ()))
        with h.cell_core_writer(self._context) as s:
            # Core INSERTs (no ORM unit of work); what was written is what
            # a re-read would return (python-side defaults included, no
            # server defaults), so no SELECTs to fill the object back.
            row = h.insert_row(s, models.Instance, values)
            h.insert_rows(s, models.InstanceExtra,
                          [dict(extra, instance_uuid=uuid)])
            # Key/value rows as one executemany per table.
            for model, name in ((models.InstanceMetadata, "metadata"),
                                (models.InstanceSystemMetadata,
                                 "system_metadata")):
                rows = [{"instance_uuid": uuid, "key": key, "value": value}
                        for key, value in (changes.get(name) or {}).items()]
                if rows:
                    h.insert_rows(s, model, rows)
            cache_row = h.insert_row(s, models.InstanceInfoCache, {
                "instance_uuid": uuid, "network_info": network_info})
            tag_rows = [h.RowValues(models.Tag,
                                    {"resource_id": uuid, "tag": tag})
                        for tag in tags]
            if tag_rows:
                h.insert_rows(s, models.Tag, [{"resource_id": uuid,
                                               "tag": tag} for tag in tags])
        # Only once committed, as Nova fills the object from what
        # instance_create returned: a deadlock at COMMIT (Galera) re-runs
        # create, which must still find the object not created.
        self._from_new_rows(row, cache_row, tag_rows, changes)
        self.obj_reset_changes(recursive=True)

    def _from_new_rows(self, row, cache_row, tag_rows, changes):
        from keel import objects

        context = self._context
        _fill_columns(self, row)
        if "metadata" in changes:
            self.metadata = dict(changes["metadata"])
        if "system_metadata" in changes:
            self.system_metadata = dict(changes["system_metadata"])
        self.info_cache = objects.InstanceInfoCache._from_db_object(
            context, objects.InstanceInfoCache(), cache_row)
        if "security_groups" in changes:
            # Not persisted by keel (Neutron owns security groups).
            self.security_groups = objects.SecurityGroupList(objects=[])
        if "tags" in changes:
            self.tags = base.obj_make_list(
                context, objects.TagList(context), objects.Tag, tag_rows)

    @base.remotable
    @h.retry_instance_update
    def save(self, expected_vm_state=None, expected_task_state=None,
             admin_state_reset=False):
        """Write the changed fields.

        With ``expected_task_state``/``expected_vm_state`` (a value or a
        list; None in the list means NULL) the write only happens if the
        row still has one of those states, checked in the same UPDATE;
        otherwise UnexpectedTaskStateError (UnexpectedDeletingTaskStateError
        when the instance is being deleted) or, when only vm_state differs,
        InstanceUpdateConflict (their base class, as Nova's).
        As Nova's, no field of the row changed (object fields only) means no
        UPDATE of the row: no state check, no instance.update. A user
        context saves only its project's instances (else InstanceNotFound).
        """
        changes = self.obj_what_changed()
        values = {}
        for name in changes:
            if name in _NOT_COLUMNS or name in ("id", "uuid"):
                continue
            value = getattr(self, name)
            if name in ("access_ip_v4", "access_ip_v6") and value:
                value = str(value)
            values[name] = value
        if "cleaned" in changes:
            values["cleaned"] = int(bool(self.cleaned))
        # Nova updates the row only if a field that is not an object
        # changed (metadata counts), else returns before the state checks.
        write_row = not _ROW_FIELDS.isdisjoint(changes)
        if write_row and "updated_at" not in values:
            # Stamped here rather than by the column's onupdate, so the
            # object learns it without reading the row back (also when only
            # metadata changed: Nova's UPDATE then still sets updated_at).
            values["updated_at"] = timeutils.utcnow()
        extra_names = [n for n in changes
                       if n in _EXTRA_BLOBS or n in _FLAVORS]
        save_cache = "info_cache" in changes and self.info_cache is not None
        if not (write_row or extra_names or save_cache):
            self._reset_saved(changes)
            return
        # instance.update after every save, as Nova, only when
        # [notifications]/notify_on_state_change asks (a flag read otherwise).
        notify = write_row and notifications.state_change_mode()
        old_states = None
        # Core statements (metadata rows and a cache without its row go
        # through the ORM session CoreTransaction makes on demand).
        row = None
        with h.cell_core_writer(self._context) as s:
            if notify:
                old_states = instance_db.states_before_save(s, self.uuid)
            stored_flavor = None
            if set(extra_names) & set(_FLAVORS):
                stored_flavor = instance_db.stored_flavor(s, self.uuid)
            extra = self._extra_values(extra_names, stored_flavor)
            if write_row:
                row = instance_db.compare_and_swap(
                    s, self.uuid, values,
                    expected_task_state=expected_task_state,
                    expected_vm_state=expected_vm_state,
                    project_id=instance_db.owner_filter(self._context))
            if extra:
                instance_db.update_extra(s, self.uuid, extra)
            if "metadata" in changes:
                instance_db.sync_key_values(s, models.InstanceMetadata,
                                            self.uuid, self.metadata)
            if "system_metadata" in changes:
                instance_db.sync_key_values(
                    s, models.InstanceSystemMetadata, self.uuid,
                    self.system_metadata)
            if save_cache:
                self.info_cache._save_in_session(s)
        if row is not None:
            # As Nova's save (_from_db_object of the updated row): the
            # columns other writers changed meanwhile come back too. Only
            # after the commit, so that a retried save still has its
            # changes to write.
            _refresh_columns(self, row)
        self._reset_saved(changes)
        if old_states is not None:
            self._send_update(old_states)

    def _reset_saved(self, changes):
        """obj_reset_changes(recursive=True) knowing what changed: oslo's
        recursive reset works the changes out again (every nested object
        walked, the metadata dicts compared) on each save."""
        for name in changes:
            value = self.__dict__.get("_obj_" + name)
            if value is None:
                continue
            field = self.fields[name]
            if isinstance(field, ovoo_fields.ObjectField):
                value.obj_reset_changes(recursive=True)
            elif isinstance(field, ovoo_fields.ListOfObjectsField):
                for item in value:
                    item.obj_reset_changes(recursive=True)
        self.obj_reset_changes()

    def _send_update(self, old_states):
        from keel.notifications import instance as notify_instance
        old = dict(zip(("vm_state", "task_state", "display_name"),
                       old_states))
        # A copy: lazy loads for the payload leave this object as it was.
        notify_instance.send_update(self._context, old, self.obj_clone())

    @base.remotable
    def refresh(self, use_slave=False):
        loaded = [a for a in INSTANCE_OPTIONAL_ATTRS
                  if self.obj_attr_is_set(a)]
        fresh = self.get_by_uuid(self._context, self.uuid,
                                 expected_attrs=loaded)
        for name in self.fields:
            if fresh.obj_attr_is_set(name):
                setattr(self, name, getattr(fresh, name))
        self.obj_reset_changes()

    @base.remotable
    @h.retry_on_deadlock
    def destroy(self, hard_delete=False):
        """Soft-delete the instance and its dependent rows (as Nova's
        instance_destroy); raises InstanceNotFound if already gone."""
        if not self.obj_attr_is_set("id"):
            raise exception.ObjectActionError(action="destroy",
                                              reason="already destroyed")
        if not hard_delete:
            now = timeutils.utcnow()
            with h.cell_core_writer(self._context) as s:
                instance_db.soft_delete(s, self.uuid, now)
            self.deleted = True
            self.deleted_at = now
            self.obj_reset_changes(["deleted", "deleted_at"])
            return
        with h.cell_writer(self._context) as s:
            row = s.execute(sa.select(models.Instance).where(
                models.Instance.uuid == self.uuid,
                models.Instance.deleted == 0)).scalars().first()
            if row is None:
                raise exception.InstanceNotFound(instance_id=self.uuid)
            for model in (models.InstanceMetadata,
                          models.InstanceSystemMetadata,
                          models.InstanceInfoCache,
                          models.InstanceExtra):
                s.execute(sa.delete(model).where(
                    model.instance_uuid == self.uuid))
            s.execute(sa.delete(models.Tag).where(
                models.Tag.resource_id == self.uuid))
            s.delete(row)
        self.obj_reset_changes(["deleted", "deleted_at"])

    @base.remotable
    @h.retry_on_deadlock
    def delete_metadata_key(self, key):
        with h.cell_writer(self._context) as s:
            s.execute(sa.update(models.InstanceMetadata)
                      .where(models.InstanceMetadata.instance_uuid ==
                             self.uuid,
                             models.InstanceMetadata.key == key,
                             models.InstanceMetadata.deleted == 0)
                      .values(h.soft_delete_values(models.InstanceMetadata))
                      .execution_options(synchronize_session=False))
        md = dict(self.metadata)
        md.pop(key, None)
        self.metadata = md
        self.obj_reset_changes(["metadata"])

    @base.remotable
    def drop_migration_context(self):
        self.migration_context = None
        self.save()


# Fields whose change makes save() UPDATE the instances row: those that
# are not objects (Nova's save sends only these to instance_update).
_ROW_FIELDS = frozenset(
    name for name, field in Instance.fields.items()
    if not isinstance(field, ovoo_fields.ObjectField))
# Fields that are columns of instances, as they are filled from a row.
_COLUMN_FIELDS = tuple(sorted(
    (h.columns(models.Instance) & set(Instance.fields)) - _NOT_COLUMNS))
# Nullable columns of fields that are not: NULL reads as False.
_FALSE_IF_NULL = frozenset(("locked", "disable_terminate",
                            "shutdown_terminate", "hidden",
                            "auto_disk_config"))


def _fill_columns(inst, row):
    """The column fields of ``inst`` from an instances row (ORM row or
    RowValues), as Nova's _from_db_object sets them."""
    h.copy_columns(inst, row, skip=_NOT_COLUMNS)
    inst.deleted = row.deleted == row.id
    inst.cleaned = bool(row.cleaned)
    for name in _FALSE_IF_NULL:
        if getattr(inst, name) is None:
            setattr(inst, name, False)


def _refresh_columns(inst, row):
    """_fill_columns from a Core row, setting only the fields whose value
    differs from the stored one: a field's setattr (its coercion) is the
    cost, and after a save nearly all of them are equal."""
    have = inst.__dict__
    row = row._mapping
    for name in _COLUMN_FIELDS:
        value = row[name]
        if value is None and name in _FALSE_IF_NULL:
            value = False
        current = have.get("_obj_" + name, _UNSET)
        if current is not _UNSET and _same(current, value):
            continue
        setattr(inst, name, value)
    deleted = row["deleted"] == row["id"]
    if have.get("_obj_deleted", _UNSET) != deleted:
        inst.deleted = deleted
    cleaned = bool(row["cleaned"])
    if have.get("_obj_cleaned", _UNSET) != cleaned:
        inst.cleaned = cleaned


_UNSET = object()


def _same(current, stored):
    """Whether a field's value equals the column's: datetimes are stored
    naive (UTC), the fields hold them aware; addresses are netaddr
    objects, stored as strings."""
    if current == stored:
        return True
    if isinstance(current, datetime.datetime) and current.tzinfo is not None:
        return current.replace(tzinfo=None) == stored
    if isinstance(current, netaddr.IPAddress):
        return str(current) == stored
    return False

