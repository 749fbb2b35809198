"""Objects: Diagnostics and its parts (CpuDiagnostics, NicDiagnostics,
DiskDiagnostics, MemoryDiagnostics): a driver's standard view of a guest
(GET /servers/{id}/diagnostics from 2.48). Ephemeral: never stored; every
field gets its default when the object is made, and the counts follow the
detail lists."""
from keel.objects import base
from keel.objects import fields


@base.KeelObjectRegistry.register
class CpuDiagnostics(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(nullable=True),
        'time': fields.IntegerField(nullable=True),
        'utilisation': fields.IntegerField(nullable=True),
    }


@base.KeelObjectRegistry.register
class NicDiagnostics(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'mac_address': fields.MACAddressField(nullable=True),
        'rx_octets': fields.IntegerField(nullable=True),
        'rx_errors': fields.IntegerField(nullable=True),
        'rx_drop': fields.IntegerField(nullable=True),
        'rx_packets': fields.IntegerField(nullable=True),
        'rx_rate': fields.IntegerField(nullable=True),
        'tx_octets': fields.IntegerField(nullable=True),
        'tx_errors': fields.IntegerField(nullable=True),
        'tx_drop': fields.IntegerField(nullable=True),
        'tx_packets': fields.IntegerField(nullable=True),
        'tx_rate': fields.IntegerField(nullable=True),
    }


@base.KeelObjectRegistry.register
class DiskDiagnostics(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'read_bytes': fields.IntegerField(nullable=True),
        'read_requests': fields.IntegerField(nullable=True),
        'write_bytes': fields.IntegerField(nullable=True),
        'write_requests': fields.IntegerField(nullable=True),
        'errors_count': fields.IntegerField(nullable=True),
    }


@base.KeelObjectRegistry.register
class MemoryDiagnostics(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'maximum': fields.IntegerField(nullable=True),
        'used': fields.IntegerField(nullable=True),
    }


@base.KeelObjectRegistry.register
class Diagnostics(base.KeelObject):
    VERSION = '1.0'

    fields = {
        'state': fields.InstancePowerStateField(),
        'driver': fields.HypervisorDriverField(),
        'hypervisor': fields.StringField(nullable=True),
        'hypervisor_os': fields.StringField(nullable=True),
        'uptime': fields.IntegerField(nullable=True),
        'config_drive': fields.BooleanField(),
        'num_cpus': fields.IntegerField(),
        'num_nics': fields.IntegerField(),
        'num_disks': fields.IntegerField(),
        'cpu_details': fields.ListOfObjectsField('CpuDiagnostics',
                                                 default=[]),
        'nic_details': fields.ListOfObjectsField('NicDiagnostics',
                                                 default=[]),
        'disk_details': fields.ListOfObjectsField('DiskDiagnostics',
                                                  default=[]),
        'memory_details': fields.ObjectField('MemoryDiagnostics',
                                             default=MemoryDiagnostics()),
    }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ('cpu_details', 'nic_details', 'disk_details',
                     'memory_details'):
            if not self.obj_attr_is_set(name):
                self.obj_set_defaults(name)
        self._count()

    def _count(self):
        self.num_cpus = len(self.cpu_details)
        self.num_nics = len(self.nic_details)
        self.num_disks = len(self.disk_details)

    def add_cpu(self, id=None, time=None, utilisation=None):
        self.cpu_details.append(
            CpuDiagnostics(id=id, time=time, utilisation=utilisation))
        self._count()

    def add_nic(self, **stats):
        self.nic_details.append(NicDiagnostics(**stats))
        self._count()

    def add_disk(self, **stats):
        self.disk_details.append(DiskDiagnostics(**stats))
        self._count()
