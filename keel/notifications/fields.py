"""Enum fields of the versioned notifications (Nova's values).

Only what the notification objects need lives here: the instance state
enums carry the vm/task/power state names consumers see, the notification
enums the envelope parts (priority, phase, source, action).
"""
from oslo_versionedobjects import fields

from keel.objects import fields as obj_fields


class _Enum(fields.Enum):
    def __init__(self, **kwargs):
        super().__init__(valid_values=self.__class__.ALL, **kwargs)


class NotificationPriority(_Enum):
    AUDIT = 'audit'
    CRITICAL = 'critical'
    DEBUG = 'debug'
    INFO = 'info'
    ERROR = 'error'
    SAMPLE = 'sample'
    WARN = 'warn'
    ALL = (AUDIT, CRITICAL, DEBUG, INFO, ERROR, SAMPLE, WARN)


class NotificationPhase(_Enum):
    START = 'start'
    END = 'end'
    ERROR = 'error'
    PROGRESS = 'progress'
    ALL = (START, END, ERROR, PROGRESS)


class NotificationSource(_Enum):
    """The source part of a versioned publisher_id (``<source>:<host>``)."""
    API = 'nova-api'
    COMPUTE = 'nova-compute'
    CONDUCTOR = 'nova-conductor'
    SCHEDULER = 'nova-scheduler'
    NETWORK = 'nova-network'
    CONSOLEAUTH = 'nova-consoleauth'
    CELLS = 'nova-cells'
    CONSOLE = 'nova-console'
    METADATA = 'nova-metadata'
    ALL = (API, COMPUTE, CONDUCTOR, SCHEDULER, NETWORK, CONSOLEAUTH, CELLS,
           CONSOLE, METADATA)

    @staticmethod
    def get_source_by_binary(binary):
        # nova-osapi_compute and nova-metadata are both the API service.
        if binary in ('nova-osapi_compute', 'nova-metadata'):
            return NotificationSource.API
        return binary


class NotificationAction(_Enum):
    UPDATE = 'update'
    EXCEPTION = 'exception'
    DELETE = 'delete'
    PAUSE = 'pause'
    UNPAUSE = 'unpause'
    RESIZE = 'resize'
    VOLUME_SWAP = 'volume_swap'
    SUSPEND = 'suspend'
    POWER_ON = 'power_on'
    POWER_OFF = 'power_off'
    REBOOT = 'reboot'
    SHUTDOWN = 'shutdown'
    SNAPSHOT = 'snapshot'
    INTERFACE_ATTACH = 'interface_attach'
    SHELVE = 'shelve'
    RESUME = 'resume'
    RESTORE = 'restore'
    EXISTS = 'exists'
    RESCUE = 'rescue'
    VOLUME_ATTACH = 'volume_attach'
    VOLUME_DETACH = 'volume_detach'
    SHARE_ATTACH = 'share_attach'
    SHARE_DETACH = 'share_detach'
    CREATE = 'create'
    IMPORT = 'import'
    EVACUATE = 'evacuate'
    RESIZE_FINISH = 'resize_finish'
    LIVE_MIGRATION_ABORT = 'live_migration_abort'
    LIVE_MIGRATION_POST_DEST = 'live_migration_post_dest'
    LIVE_MIGRATION_POST = 'live_migration_post'
    LIVE_MIGRATION_PRE = 'live_migration_pre'
    LIVE_MIGRATION_ROLLBACK_DEST = 'live_migration_rollback_dest'
    LIVE_MIGRATION_ROLLBACK = 'live_migration_rollback'
    LIVE_MIGRATION_FORCE_COMPLETE = 'live_migration_force_complete'
    REBUILD = 'rebuild'
    REBUILD_SCHEDULED = 'rebuild_scheduled'
    INTERFACE_DETACH = 'interface_detach'
    RESIZE_CONFIRM = 'resize_confirm'
    RESIZE_PREP = 'resize_prep'
    RESIZE_REVERT = 'resize_revert'
    SELECT_DESTINATIONS = 'select_destinations'
    SHELVE_OFFLOAD = 'shelve_offload'
    SOFT_DELETE = 'soft_delete'
    TRIGGER_CRASH_DUMP = 'trigger_crash_dump'
    UNRESCUE = 'unrescue'
    UNSHELVE = 'unshelve'
    ADD_HOST = 'add_host'
    REMOVE_HOST = 'remove_host'
    ADD_MEMBER = 'add_member'
    UPDATE_METADATA = 'update_metadata'
    LOCK = 'lock'
    UNLOCK = 'unlock'
    UPDATE_PROP = 'update_prop'
    CONNECT = 'connect'
    USAGE = 'usage'
    BUILD_INSTANCES = 'build_instances'
    MIGRATE_SERVER = 'migrate_server'
    REBUILD_SERVER = 'rebuild_server'
    IMAGE_CACHE = 'cache_images'
    ALL = (UPDATE, EXCEPTION, DELETE, PAUSE, UNPAUSE, RESIZE, VOLUME_SWAP,
           SUSPEND, POWER_ON, REBOOT, SHUTDOWN, SNAPSHOT, INTERFACE_ATTACH,
           POWER_OFF, SHELVE, RESUME, RESTORE, EXISTS, RESCUE, VOLUME_ATTACH,
           VOLUME_DETACH, SHARE_ATTACH, SHARE_DETACH, CREATE, IMPORT,
           EVACUATE, RESIZE_FINISH, LIVE_MIGRATION_ABORT,
           LIVE_MIGRATION_POST_DEST, LIVE_MIGRATION_POST,
           LIVE_MIGRATION_PRE, LIVE_MIGRATION_ROLLBACK,
           LIVE_MIGRATION_ROLLBACK_DEST, LIVE_MIGRATION_FORCE_COMPLETE,
           REBUILD, REBUILD_SCHEDULED, INTERFACE_DETACH, RESIZE_CONFIRM,
           RESIZE_PREP, RESIZE_REVERT, SELECT_DESTINATIONS, SHELVE_OFFLOAD,
           SOFT_DELETE, TRIGGER_CRASH_DUMP, UNRESCUE, UNSHELVE, ADD_HOST,
           REMOVE_HOST, ADD_MEMBER, UPDATE_METADATA, LOCK, UNLOCK,
           UPDATE_PROP, CONNECT, USAGE, BUILD_INSTANCES, MIGRATE_SERVER,
           REBUILD_SERVER, IMAGE_CACHE)


class InstanceState(_Enum):
    """vm_state names, as the payload's ``state`` shows them."""
    ACTIVE = 'active'
    BUILDING = 'building'
    PAUSED = 'paused'
    SUSPENDED = 'suspended'
    STOPPED = 'stopped'
    RESCUED = 'rescued'
    RESIZED = 'resized'
    SOFT_DELETED = 'soft-delete'
    DELETED = 'deleted'
    ERROR = 'error'
    SHELVED = 'shelved'
    SHELVED_OFFLOADED = 'shelved_offloaded'
    ALL = (ACTIVE, BUILDING, PAUSED, SUSPENDED, STOPPED, RESCUED, RESIZED,
           SOFT_DELETED, DELETED, ERROR, SHELVED, SHELVED_OFFLOADED)


class InstanceTaskState(_Enum):
    ALL = (
        'scheduling', 'block_device_mapping', 'networking', 'spawning',
        'image_snapshot', 'image_snapshot_pending', 'image_pending_upload',
        'image_uploading', 'image_backup', 'updating_password',
        'resize_prep', 'resize_migrating', 'resize_migrated',
        'resize_finish', 'resize_reverting', 'resize_confirming',
        'rebooting', 'reboot_pending', 'reboot_started', 'rebooting_hard',
        'reboot_pending_hard', 'reboot_started_hard', 'pausing',
        'unpausing', 'suspending', 'resuming', 'powering-off',
        'powering-on', 'rescuing', 'unrescuing', 'rebuilding',
        'rebuild_block_device_mapping', 'rebuild_spawning', 'migrating',
        'deleting', 'soft-deleting', 'restoring', 'shelving',
        'shelving_image_pending_upload', 'shelving_image_uploading',
        'shelving_offloading', 'unshelving')


class InstancePowerState(obj_fields.InstancePowerState):
    """Power state names; an integer (the instance column) is mapped to its
    name, as Nova's payloads show ``running``, not ``1``."""

    def coerce(self, obj, attr, value):
        if isinstance(value, int) and not isinstance(value, bool):
            value = obj_fields.power_state_from_index(value)
        return super().coerce(obj, attr, value)


class DiskConfig(_Enum):
    MANUAL = 'MANUAL'
    AUTO = 'AUTO'
    ALL = (MANUAL, AUTO)

    def coerce(self, obj, attr, value):
        # The instance keeps a boolean; payloads show AUTO/MANUAL.
        if isinstance(value, bool):
            value = self.AUTO if value else self.MANUAL
        return super().coerce(obj, attr, value)


def _enum_field(enum_cls):
    class _Field(fields.BaseEnumField):
        AUTO_TYPE = enum_cls()
    _Field.__name__ = enum_cls.__name__ + 'Field'
    return _Field


NotificationPriorityField = _enum_field(NotificationPriority)
NotificationPhaseField = _enum_field(NotificationPhase)
NotificationSourceField = _enum_field(NotificationSource)
NotificationActionField = _enum_field(NotificationAction)
InstanceStateField = _enum_field(InstanceState)
InstanceTaskStateField = _enum_field(InstanceTaskState)
InstancePowerStateField = _enum_field(InstancePowerState)
DiskConfigField = _enum_field(DiskConfig)
