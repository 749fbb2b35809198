"""Objects: TrustedCerts.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class TrustedCerts(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'ids': fields.ListOfStringsField(),
    }
