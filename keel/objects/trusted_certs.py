"""Objects: TrustedCerts.
"""
from keel.objects import base
from keel.objects import fields
from keel.objects import instance_db


@base.KeelObjectRegistry.register
class TrustedCerts(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'ids': fields.ListOfStringsField(),
    }

    @base.remotable_classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """From instance_extra.trusted_certs (None when empty)."""
        return instance_db.obj_from_extra(cls, context, instance_uuid,
                                          "trusted_certs")
