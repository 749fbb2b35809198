"""Keel's exceptions, named as Nova's so that RPC peers and API faults match.

Each exception has a ``msg_fmt`` formatted with its keyword arguments and an
HTTP ``code`` that the API fault wrapper uses when one escapes a handler.
oslo.messaging re-raises them on the calling side because ``keel.exception``
is in the allowed remote exception modules.
"""


class NovaException(Exception):
    msg_fmt = "An unknown exception occurred."
    code = 500
    headers = {}
    safe = False

    def __init__(self, message=None, **kwargs):
        self.kwargs = kwargs
        self.kwargs.setdefault("code", self.code)
        if not message:
            try:
                message = self.msg_fmt % kwargs
            except (KeyError, TypeError, ValueError):
                # A missing argument must not hide the original error.
                message = self.msg_fmt
        self.message = str(message)
        super().__init__(self.message)

    def format_message(self):
        return self.args[0] if self.args else self.message


KeelException = NovaException


class Invalid(NovaException):
    msg_fmt = "Bad Request - Invalid Parameters"
    code = 400


class InvalidInput(Invalid):
    msg_fmt = "Invalid input received: %(reason)s"


class ValidationError(Invalid):
    msg_fmt = "%(detail)s"


class Forbidden(NovaException):
    msg_fmt = "Forbidden"
    code = 403


class PolicyNotAuthorized(Forbidden):
    msg_fmt = "Policy doesn't allow %(action)s to be performed."


class NotFound(NovaException):
    msg_fmt = "Resource could not be found."
    code = 404


class Conflict(NovaException):
    msg_fmt = "Conflict"
    code = 409


class ServiceUnavailable(NovaException):
    msg_fmt = "Service is unavailable at this time."
    code = 503


class ConfigInvalid(Invalid):
    msg_fmt = "Invalid configuration: %(reason)s"


# --- cells and mappings -------------------------------------------------

class CellMappingNotFound(NotFound):
    msg_fmt = "Cell %(uuid)s has no mapping."


class CellMappingExists(Invalid):
    msg_fmt = "Cell mapping with name %(name)s already exists."


class HostMappingNotFound(NotFound):
    msg_fmt = "Host '%(name)s' is not mapped to any cell"


class HostMappingExists(Invalid):
    msg_fmt = "Host '%(name)s' mapping already exists"


class InstanceMappingNotFound(NotFound):
    msg_fmt = "Instance %(uuid)s has no mapping to a cell."


class BuildRequestNotFound(NotFound):
    msg_fmt = "BuildRequest not found for instance %(uuid)s"


class RequestSpecNotFound(NotFound):
    msg_fmt = "RequestSpec not found for instance %(instance_uuid)s"


# --- services and hosts -------------------------------------------------

class ServiceNotFound(NotFound):
    msg_fmt = "Service %(service_id)s could not be found."


class ServiceNotUnique(Invalid):
    msg_fmt = "More than one possible service found."


class HostBinaryNotFound(NotFound):
    msg_fmt = "Could not find binary %(binary)s on host %(host)s."


class ServiceBinaryExists(NovaException):
    msg_fmt = "Service with host %(host)s binary %(binary)s exists."


class ServiceTopicExists(NovaException):
    msg_fmt = "Service with host %(host)s topic %(topic)s exists."


class ServiceAlreadyRunning(NovaException):
    msg_fmt = ("Service %(binary)s on host %(host)s is already running "
               "(last heartbeat %(age)s s ago, service_down_time is "
               "%(down_time)s s). Stop it first or choose another [DEFAULT]/host.")


class ServiceTooOld(Invalid):
    msg_fmt = ("This service is older (v%(thisver)i) than the minimum "
               "(v%(minver)i) version of the rest of the deployment. "
               "Unable to continue.")


class ComputeHostNotFound(NotFound):
    msg_fmt = "Compute host %(host)s could not be found."


class ComputeHostNotCreated(NotFound):
    msg_fmt = "Compute host %(name)s needs to be created first before updating."


class HypervisorUnavailable(NovaException):
    msg_fmt = "Connection to the hypervisor is broken on host"


# --- instances ------------------------------------------------------------

class InstanceNotFound(NotFound):
    msg_fmt = "Instance %(instance_id)s could not be found."


class InstanceExists(NovaException):
    msg_fmt = "Instance %(name)s already exists."


class InstanceInvalidState(Invalid):
    msg_fmt = ("Instance %(instance_uuid)s in %(attr)s %(state)s. Cannot "
               "%(method)s while the instance is in this state.")


class InstanceUpdateConflict(NovaException):
    """A compare-and-swap save found other states than it expected.

    As Nova's: the task-state errors below are kinds of it, a vm_state-only
    conflict raises it itself, and the unknown case (the UPDATE missed but
    the re-read shows no differing state) is its own subclass."""
    msg_fmt = ("Conflict updating instance %(instance_uuid)s. "
               "Expected: %(expected)s. Actual: %(actual)s")


class UnknownInstanceUpdateConflict(InstanceUpdateConflict):
    msg_fmt = ("Conflict updating instance %(instance_uuid)s, but we were "
               "unable to determine the cause")


class UnexpectedTaskStateError(InstanceUpdateConflict):
    code = 409


class UnexpectedDeletingTaskStateError(UnexpectedTaskStateError):
    pass


class InstanceActionNotFound(NovaException):
    msg_fmt = ("Action for request_id %(request_id)s on instance "
               "%(instance_uuid)s not found")


class InstanceActionEventNotFound(NovaException):
    msg_fmt = "Event %(event)s not found for action id %(action_id)s"


class FlavorNotFound(NotFound):
    msg_fmt = "Flavor %(flavor_id)s could not be found."


class MigrationNotFound(NotFound):
    msg_fmt = "Migration %(migration_id)s could not be found."


class ObjectActionError(NovaException):
    msg_fmt = "Object action %(action)s failed because: %(reason)s"


class OrphanedObjectError(NovaException):
    msg_fmt = "Cannot call %(method)s on orphaned %(objtype)s object"


class NoValidHost(NovaException):
    msg_fmt = "No valid host was found. %(reason)s"


class MaxRetriesExceeded(NoValidHost):
    msg_fmt = "Exceeded maximum number of retries. %(reason)s"


# --- placement --------------------------------------------------------------

class PlacementAPIConnectFailure(NovaException):
    msg_fmt = "Unable to communicate with the Placement API."


class ResourceProviderCreationFailed(NovaException):
    msg_fmt = "Failed to create resource provider %(name)s"


class ResourceProviderUpdateFailed(NovaException):
    msg_fmt = ("Failed to update resource provider via URL %(url)s: "
               "%(error)s")


class ResourceProviderUpdateConflict(NovaException):
    msg_fmt = ("A conflict was encountered attempting to update resource "
               "provider %(uuid)s (generation %(generation)d): %(error)s")


class AllocationUpdateFailed(NovaException):
    msg_fmt = ("Failed to update allocations for consumer %(consumer_uuid)s. "
               "Error: %(error)s")


# ---- versioned objects (keel.objects) ----

class DuplicateRecord(NovaException):
    msg_fmt = "Unable to create duplicate record for %(target)s"


class CellTimeout(NotFound):
    msg_fmt = "Timeout waiting for response from cell"


class MarkerNotFound(NotFound):
    msg_fmt = "Marker %(marker)s could not be found."


class FlavorNotFoundByName(FlavorNotFound):
    msg_fmt = "Flavor with name %(flavor_name)s could not be found."


class FlavorExists(NovaException):
    msg_fmt = "Flavor with name %(name)s already exists."
    code = 409


class FlavorIdExists(NovaException):
    msg_fmt = "Flavor with ID %(flavor_id)s already exists."
    code = 409


class FlavorAccessExists(NovaException):
    msg_fmt = ("Flavor access already exists for flavor %(flavor_id)s "
               "and project %(project_id)s combination.")
    code = 409


class FlavorAccessNotFound(NotFound):
    msg_fmt = ("Flavor access not found for %(flavor_id)s / "
               "%(project_id)s combination.")


class BuildRequestAlreadyExists(Invalid):
    msg_fmt = "BuildRequest for instance %(uuid)s already exists."


class KeypairNotFound(NotFound):
    msg_fmt = "Keypair %(name)s not found for user %(user_id)s"


class KeyPairExists(NovaException):
    msg_fmt = "Key pair '%(key_name)s' already exists."
    code = 409


class InstanceGroupNotFound(NotFound):
    msg_fmt = "Instance group %(group_uuid)s could not be found."


class InstanceGroupIdExists(NovaException):
    msg_fmt = "Instance group %(group_uuid)s already exists."
    code = 409


class AggregateNotFound(NotFound):
    msg_fmt = "Aggregate %(aggregate_id)s could not be found."


class AggregateNameExists(NovaException):
    msg_fmt = "Aggregate %(aggregate_name)s already exists."
    code = 409


class AggregateHostNotFound(NotFound):
    msg_fmt = "Aggregate %(aggregate_id)s has no host %(host)s."


class AggregateHostExists(NovaException):
    msg_fmt = "Aggregate %(aggregate_id)s already has host %(host)s."
    code = 409


class AggregateMetadataNotFound(NotFound):
    msg_fmt = ("Aggregate %(aggregate_id)s has no metadata with key "
               "%(metadata_key)s.")


class MigrationNotFoundByStatus(MigrationNotFound):
    msg_fmt = ("Migration not found for instance %(instance_id)s "
               "with status %(status)s.")


class MigrationNotFoundForInstance(MigrationNotFound):
    msg_fmt = ("Migration %(migration_id)s not found for instance "
               "%(instance_id)s")


class BDMNotFound(NotFound):
    msg_fmt = "No Block Device Mapping with id %(id)s."


class VolumeBDMNotFound(NotFound):
    msg_fmt = "No volume Block Device Mapping with id %(volume_id)s."


class InstanceTagNotFound(NotFound):
    msg_fmt = "Instance %(instance_id)s has no tag '%(tag)s'"


class UnexpectedVMStateError(NovaException):
    msg_fmt = ("Unexpected VM state: expecting %(expected)s but the VM state "
               "is actually %(actual)s")


class InstanceInfoCacheNotFound(NotFound):
    msg_fmt = ("Info cache for instance %(instance_uuid)s could not be "
               "found.")


class VolumeBDMIsMultiattach(Invalid):
    msg_fmt = ("Volume %(volume_id)s is attached to more than one instance; "
               "look up its block device mapping with the instance.")


class DBNotAllowed(NovaException):
    msg_fmt = ("%(binary)s attempted direct database access which is not "
               "allowed by policy")


class VirtualInterfaceCreateException(NovaException):
    msg_fmt = "Virtual Interface creation failed"


class VirtualInterfaceNotFound(NotFound):
    msg_fmt = "Virtual interface %(id)s could not be found."


class ComputeServiceUnavailable(Invalid):
    msg_fmt = "Compute service of %(host)s is unavailable at this time."


class InvalidAggregateAction(Invalid):
    msg_fmt = "Unacceptable parameters."


class InvalidAggregateActionAdd(InvalidAggregateAction):
    msg_fmt = ("Cannot add host to aggregate %(aggregate_id)s. "
               "Reason: %(reason)s.")


class InvalidAggregateActionDelete(InvalidAggregateAction):
    msg_fmt = ("Cannot remove host from aggregate %(aggregate_id)s. "
               "Reason: %(reason)s.")


class InvalidAggregateActionUpdate(InvalidAggregateAction):
    msg_fmt = ("Cannot update aggregate %(aggregate_id)s. "
               "Reason: %(reason)s.")


class InvalidAggregateActionUpdateMeta(InvalidAggregateAction):
    msg_fmt = ("Cannot update metadata of aggregate %(aggregate_id)s. "
               "Reason: %(reason)s.")


class OverQuota(NovaException):
    msg_fmt = "Quota exceeded for resources: %(overs)s"
    code = 403


class QuotaResourceUnknown(NotFound):
    msg_fmt = "Unknown quota resources %(unknown)s."


class InvalidKeypair(Invalid):
    msg_fmt = "Keypair data is invalid: %(reason)s"


class KeypairLimitExceeded(OverQuota):
    msg_fmt = "Quota exceeded, too many key pairs."


class RequestFilterFailed(NovaException):
    msg_fmt = "Scheduling failed: %(reason)s"


class SchedulerHostFilterNotFound(NotFound):
    msg_fmt = "Scheduler Host Filter %(filter_name)s could not be found."


class InstanceIsLocked(InstanceInvalidState):
    msg_fmt = "Instance %(instance_uuid)s is locked"
    code = 409


class MetadataLimitExceeded(Forbidden):
    msg_fmt = "Maximum number of metadata items exceeds %(allowed)d"


class TaskAlreadyRunning(NovaException):
    msg_fmt = "Task %(task_name)s is already running on host %(host)s"


class TaskNotRunning(NovaException):
    msg_fmt = "Task %(task_name)s is not running on host %(host)s"


def home_in_keel_exception(namespace):
    """Name the classes defined in ``namespace`` as members of keel.exception:
    oslo.messaging sends an exception's module over RPC and the receiver
    imports it from the allowed list (``keel.exception``), where every
    family is re-exported."""
    for value in list(namespace.values()):
        if isinstance(value, type) and value.__module__ == namespace[
                "__name__"]:
            value.__module__ = __name__


# The families live in their own modules (one concern each); every name is
# importable from here, as from Nova's nova.exception.
from keel.exception_virt import *  # noqa: E402,F401,F403
from keel.exception_network import *  # noqa: E402,F401,F403
from keel.exception_api import *  # noqa: E402,F401,F403
from keel.exception_share import *  # noqa: E402,F401,F403
