"""Objects: Migration, MigrationList.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class Migration(base.KeelPersistentObject, base.KeelObject,
                base.KeelObjectDictCompat):
    VERSION = '1.8'

    fields = {
        'cross_cell_move': fields.BooleanField(default=False),
        'dest_compute': fields.StringField(nullable=True),
        'dest_compute_id': fields.IntegerField(nullable=True),
        'dest_host': fields.StringField(nullable=True),
        'dest_node': fields.StringField(nullable=True),
        'disk_processed': fields.IntegerField(nullable=True),
        'disk_remaining': fields.IntegerField(nullable=True),
        'disk_total': fields.IntegerField(nullable=True),
        'hidden': fields.BooleanField(default=False),
        'id': fields.IntegerField(),
        'instance_uuid': fields.StringField(nullable=True),
        'memory_processed': fields.IntegerField(nullable=True),
        'memory_remaining': fields.IntegerField(nullable=True),
        'memory_total': fields.IntegerField(nullable=True),
        'migration_type': fields.MigrationTypeField(),
        'new_instance_type_id': fields.IntegerField(nullable=True),
        'old_instance_type_id': fields.IntegerField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'source_compute': fields.StringField(nullable=True),
        'source_node': fields.StringField(nullable=True),
        'status': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'uuid': fields.UUIDField(),
    }


@base.KeelObjectRegistry.register
class MigrationList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.5'

    fields = {
        'objects': fields.ListOfObjectsField('Migration'),
    }
