"""What both halves of a cold move share: task and migration states, the
instance's flavor fields, the notifications, and the failure handling
(Nova's _error_out_instance_on_exception with the migration in error)."""
import contextlib

from oslo_log import log as logging

from keel.compute.ops import notify
from keel import exception

LOG = logging.getLogger(__name__)

RESIZED = "resized"
RESIZE_PREP = "resize_prep"
RESIZE_MIGRATING = "resize_migrating"
RESIZE_MIGRATED = "resize_migrated"
RESIZE_FINISH = "resize_finish"
RESIZE_REVERTING = "resize_reverting"


def compute_rpc():
    from keel.compute import rpcapi
    return rpcapi.ComputeAPI()


def set_flavor(instance, flavor):
    """The instance's flavor and the columns Nova copies from it."""
    instance.flavor = flavor
    instance.instance_type_id = flavor.id
    instance.memory_mb = flavor.memory_mb
    instance.vcpus = flavor.vcpus
    instance.root_gb = flavor.root_gb
    instance.ephemeral_gb = flavor.ephemeral_gb


def set_migration_status(migration, status):
    migration.status = status
    try:
        migration.save()
    except Exception:  # noqa: BLE001 - the instance state matters more
        LOG.exception("Could not set migration %s to %s", migration.uuid,
                      status)


@contextlib.contextmanager
def error_out(instance, migration):
    """A failure puts the migration in error and the instance in ERROR (or
    back in its vm_state, no task, when the driver rolled back)."""
    vm_state = instance.vm_state
    try:
        yield
    except exception.InstanceFaultRollback as rollback:
        set_migration_status(migration, "error")
        instance.vm_state = vm_state
        instance.task_state = None
        instance.save()
        raise rollback.inner_exception
    except Exception:
        set_migration_status(migration, "error")
        from keel.compute.ops import power
        power.set_error_state(instance)
        raise


def notify_both(context, instance, host, legacy, versioned, phase,
                exception=None):
    """Legacy ``compute.instance.<legacy>.<phase>`` and versioned
    ``instance.<versioned>.<phase>``."""
    notify.usage(context, instance, "%s.%s" % (legacy, phase), host,
                 fault=exception)
    notify.action(context, instance, host, versioned, phase,
                  exception=exception)
