"""Small payloads shared by several notifications: exception, flavor,
keypair, IP address, block device, audit period, state update, bandwidth."""
import inspect
import traceback as tb_mod

from keel.conf import CONF
from keel.notifications import base
from keel.objects import fields


@base.notification
class ExceptionPayload(base.NotificationPayloadBase):
    VERSION = '1.1'
    fields = {
        'module_name': fields.StringField(),
        'function_name': fields.StringField(),
        'exception': fields.StringField(),
        'exception_message': fields.StringField(),
        'traceback': fields.StringField(),
    }

    def __init__(self, module_name, function_name, exception,
                 exception_message, traceback):
        super().__init__()
        self.module_name = module_name
        self.function_name = function_name
        self.exception = exception
        self.exception_message = exception_message
        self.traceback = traceback

    @classmethod
    def from_exception(cls, fault, traceback_text=None):
        """Where the exception was raised (innermost frame of its
        traceback) and the formatted traceback."""
        tb = fault.__traceback__
        frame = None
        while tb is not None:
            frame, tb = tb.tb_frame, tb.tb_next
        if frame is not None:
            module = inspect.getmodule(frame)
            module_name = module.__name__ if module else 'unknown'
            function_name = frame.f_code.co_name
        else:
            module_name, function_name = 'unknown', ''
        if traceback_text is None:
            traceback_text = ''.join(tb_mod.format_exception(
                type(fault), fault, fault.__traceback__))
        return cls(module_name=module_name, function_name=function_name,
                   exception=fault.__class__.__name__,
                   exception_message=str(fault), traceback=traceback_text)


@base.notification
class FlavorPayload(base.NotificationPayloadBase):
    VERSION = '1.4'
    SCHEMA = {
        'flavorid': ('flavor', 'flavorid'),
        'memory_mb': ('flavor', 'memory_mb'),
        'vcpus': ('flavor', 'vcpus'),
        'root_gb': ('flavor', 'root_gb'),
        'ephemeral_gb': ('flavor', 'ephemeral_gb'),
        'name': ('flavor', 'name'),
        'swap': ('flavor', 'swap'),
        'rxtx_factor': ('flavor', 'rxtx_factor'),
        'vcpu_weight': ('flavor', 'vcpu_weight'),
        'disabled': ('flavor', 'disabled'),
        'is_public': ('flavor', 'is_public'),
        'extra_specs': ('flavor', 'extra_specs'),
        'projects': ('flavor', 'projects'),
        'description': ('flavor', 'description'),
    }
    fields = {
        'flavorid': fields.StringField(nullable=True),
        'memory_mb': fields.IntegerField(nullable=True),
        'vcpus': fields.IntegerField(nullable=True),
        'root_gb': fields.IntegerField(nullable=True),
        'ephemeral_gb': fields.IntegerField(nullable=True),
        'name': fields.StringField(),
        'swap': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(nullable=True),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'disabled': fields.BooleanField(),
        'is_public': fields.BooleanField(),
        'extra_specs': fields.DictOfStringsField(nullable=True),
        'projects': fields.ListOfStringsField(nullable=True),
        'description': fields.StringField(nullable=True),
    }

    def __init__(self, flavor):
        super().__init__()
        if not flavor.obj_attr_is_set('projects'):
            # An instance's flavor has no project list and loading one
            # would be a query (impossible in a cell): show null.
            flavor = flavor.obj_clone()
            flavor._context = None
        self.populate_schema(flavor=flavor)


@base.notification
class KeypairPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    SCHEMA = {
        'user_id': ('keypair', 'user_id'),
        'name': ('keypair', 'name'),
        'public_key': ('keypair', 'public_key'),
        'fingerprint': ('keypair', 'fingerprint'),
        'type': ('keypair', 'type'),
    }
    fields = {
        'user_id': fields.StringField(nullable=True),
        'name': fields.StringField(nullable=False),
        'fingerprint': fields.StringField(nullable=True),
        'public_key': fields.StringField(nullable=True),
        'type': fields.StringField(nullable=False),
    }

    def __init__(self, keypair, **kwargs):
        super().__init__(**kwargs)
        self.populate_schema(keypair=keypair)


def _fixed_ips(vif):
    """A VIF's fixed IPs with their version (dict-shaped network model)."""
    network = vif.get('network') or {}
    for subnet in network.get('subnets') or []:
        for ip in subnet.get('ips') or []:
            if ip.get('type', 'fixed') != 'fixed':
                continue
            version = ip.get('version') or subnet.get('version')
            if version is None:
                version = 6 if ':' in str(ip.get('address')) else 4
            yield ip, version


@base.notification
class IpPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    fields = {
        'label': fields.StringField(),
        'mac': fields.MACAddressField(),
        'meta': fields.DictOfStringsField(),
        'port_uuid': fields.UUIDField(nullable=True),
        'version': fields.IntegerField(),
        'address': fields.IPV4AndV6AddressField(),
        'device_name': fields.StringField(nullable=True),
    }

    def __init__(self, label, mac, meta, port_uuid, version, address,
                 device_name):
        super().__init__()
        self.label = label
        self.mac = mac
        self.meta = meta
        self.port_uuid = port_uuid
        self.version = version
        self.address = address
        self.device_name = device_name

    @classmethod
    def from_network_info(cls, network_info):
        ips = []
        for vif in network_info or []:
            network = vif.get('network') or {}
            for ip, version in _fixed_ips(vif):
                ips.append(cls(
                    label=network.get('label'), mac=vif.get('address'),
                    meta={k: str(v) for k, v in
                          (vif.get('meta') or {}).items()},
                    port_uuid=vif.get('id'), version=int(version),
                    address=ip.get('address'),
                    device_name=vif.get('devname')))
        return ips


@base.notification
class BlockDevicePayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    SCHEMA = {
        'device_name': ('bdm', 'device_name'),
        'boot_index': ('bdm', 'boot_index'),
        'delete_on_termination': ('bdm', 'delete_on_termination'),
        'volume_id': ('bdm', 'volume_id'),
        'tag': ('bdm', 'tag'),
    }
    fields = {
        'device_name': fields.StringField(nullable=True),
        'boot_index': fields.IntegerField(nullable=True),
        'delete_on_termination': fields.BooleanField(default=False),
        'volume_id': fields.UUIDField(),
        'tag': fields.StringField(nullable=True),
    }

    def __init__(self, bdm):
        super().__init__()
        self.populate_schema(bdm=bdm)

    @classmethod
    def from_instance(cls, instance):
        """None unless [notifications]/bdms_in_notifications (a query)."""
        if not CONF.notifications.bdms_in_notifications:
            return None
        from keel.objects import block_device
        bdms = block_device.BlockDeviceMappingList.get_by_instance_uuid(
            instance._context, instance.uuid)
        return cls.from_bdms(bdms)

    @classmethod
    def from_bdms(cls, bdms):
        """Volumes only: image and blank mappings have no volume_id."""
        return [cls(bdm) for bdm in bdms if bdm.volume_id is not None]


@base.notification
class AuditPeriodPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    fields = {
        'audit_period_beginning': fields.DateTimeField(),
        'audit_period_ending': fields.DateTimeField(),
    }

    def __init__(self, audit_period_beginning, audit_period_ending):
        super().__init__()
        self.audit_period_beginning = audit_period_beginning
        self.audit_period_ending = audit_period_ending


@base.notification
class BandwidthPayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    fields = {
        'network_name': fields.StringField(),
        'in_bytes': fields.IntegerField(),
        'out_bytes': fields.IntegerField(),
    }

    def __init__(self, network_name, in_bytes, out_bytes):
        super().__init__()
        self.network_name = network_name
        self.in_bytes = in_bytes
        self.out_bytes = out_bytes


@base.notification
class InstanceStateUpdatePayload(base.NotificationPayloadBase):
    VERSION = '1.0'
    fields = {
        'old_state': fields.StringField(nullable=True),
        'state': fields.StringField(nullable=True),
        'old_task_state': fields.StringField(nullable=True),
        'new_task_state': fields.StringField(nullable=True),
    }

    def __init__(self, old_state, state, old_task_state, new_task_state):
        super().__init__()
        self.old_state = old_state
        self.state = state
        self.old_task_state = old_task_state
        self.new_task_state = new_task_state
