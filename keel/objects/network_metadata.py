"""Objects: NetworkMetadata.
"""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class NetworkMetadata(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'physnets': fields.SetOfStringsField(),
        'tunneled': fields.BooleanField(),
    }
