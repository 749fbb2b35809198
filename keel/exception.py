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


class UnexpectedTaskStateError(NovaException):
    msg_fmt = ("Conflict updating instance %(instance_uuid)s. "
               "Expected: %(expected)s. Actual: %(actual)s")
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


class InstanceUpdateConflict(NovaException):
    msg_fmt = ("Conflict updating instance %(instance_uuid)s, but we were "
               "unable to determine the cause")


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


# -- images (Nova's names; raised by keel.image for Glance and the local
# catalogue alike) --
class ImageNotFound(NotFound):
    msg_fmt = "Image %(image_id)s could not be found."


class ImageNotAuthorized(NovaException):
    msg_fmt = "Not authorized for image %(image_id)s."
    code = 403


class ImageBadRequest(Invalid):
    msg_fmt = ("Request of image %(image_id)s got BadRequest response: "
               "%(response)s")


class ImageDeleteConflict(NovaException):
    msg_fmt = "Conflict deleting image. Reason: %(reason)s."
    code = 409


class ImageNotActive(NovaException):
    msg_fmt = "Image %(image_id)s is not active."
    code = 409


class ImageUnacceptable(Invalid):
    msg_fmt = "Image %(image_id)s is unacceptable: %(reason)s"


class ImageQuotaExceeded(OverQuota):
    msg_fmt = "Image quota exceeded"


class GlanceConnectionFailed(NovaException):
    msg_fmt = "Connection to glance host %(server)s failed: %(reason)s"
    code = 503


# -- virt driver failures (Nova's names; raised by keel.virt drivers) -------
class RescheduledException(NovaException):
    msg_fmt = "Build of instance %(instance_uuid)s was re-scheduled: " \
              "%(reason)s"


class InstanceNotRunning(Invalid):
    msg_fmt = "Instance %(instance_id)s is not running."


class InstanceNotReady(Invalid):
    msg_fmt = "Instance %(instance_id)s is not ready"


class InstanceNotRescuable(Invalid):
    msg_fmt = "Instance %(instance_id)s cannot be rescued: %(reason)s"


class InstanceNotInRescueMode(Invalid):
    msg_fmt = "Instance %(instance_id)s is not in rescue mode"


class InstanceDeployFailure(Invalid):
    msg_fmt = "Failed to deploy instance: %(reason)s"


class InstancePowerOnFailure(Invalid):
    msg_fmt = "Failed to power on instance: %(reason)s"


class InstancePowerOffFailure(Invalid):
    msg_fmt = "Failed to power off instance: %(reason)s"


class InstanceRebootFailure(Invalid):
    msg_fmt = "Failed to reboot instance: %(reason)s"


class InstanceSuspendFailure(Invalid):
    msg_fmt = "Failed to suspend instance: %(reason)s"


class InstanceResumeFailure(Invalid):
    msg_fmt = "Failed to resume instance: %(reason)s"


class InstanceRescueFailure(NovaException):
    msg_fmt = "Failed to move instance to rescue mode: %(reason)s"


class InstanceUnRescueFailure(NovaException):
    msg_fmt = "Failed to unrescue instance: %(reason)s"


class VolumeAttachFailed(Invalid):
    msg_fmt = "Volume %(volume_id)s could not be attached. Reason: %(reason)s"


class VolumeDetachFailed(Invalid):
    msg_fmt = "Volume %(volume_id)s could not be detached. Reason: %(reason)s"


class InterfaceAttachFailed(NovaException):
    msg_fmt = "Failed to attach network adapter device to %(instance_uuid)s"


class InterfaceDetachFailed(Invalid):
    msg_fmt = "Failed to detach network adapter device from " \
              "%(instance_uuid)s"


class MigrationError(NovaException):
    msg_fmt = "Migration error: %(reason)s"


class MigrationPreCheckError(MigrationError):
    msg_fmt = "Migration pre-check error: %(reason)s"


class ResizeError(NovaException):
    msg_fmt = "Resize error: %(reason)s"


# --- network (Neutron) and volume (Cinder) ------------------------------

class NetworkNotFound(NotFound):
    msg_fmt = "Network %(network_id)s could not be found."


class NetworkNotFoundForBridge(NetworkNotFound):
    msg_fmt = "Network could not be found for bridge %(bridge)s"


class PortNotFound(NotFound):
    msg_fmt = "Port id %(port_id)s could not be found."


class PortInUse(Invalid):
    msg_fmt = "Port %(port_id)s is still in use."
    code = 409


class PortNotUsable(Invalid):
    msg_fmt = "Port %(port_id)s not usable for instance %(instance)s."


class PortRequiresFixedIP(Invalid):
    msg_fmt = "Port %(port_id)s requires a FixedIP in order to be used."


class PortBindingFailed(Invalid):
    msg_fmt = ("Binding failed for port %(port_id)s, please check neutron "
               "logs for more information.")


class PortLimitExceeded(OverQuota):
    msg_fmt = "Maximum number of ports exceeded"


class NetworkAmbiguous(Invalid):
    msg_fmt = ("More than one possible network found. Specify network ID(s) "
               "to select which one(s) to connect to.")
    code = 409


class NetworkRequiresSubnet(Invalid):
    msg_fmt = ("Network %(network_uuid)s requires a subnet in order to boot "
               "instances on.")


class NetworkDuplicated(Invalid):
    msg_fmt = "Network %(network_id)s is duplicated."


class ExternalNetworkAttachForbidden(Forbidden):
    msg_fmt = ("It is not allowed to create an interface on external network "
               "%(network_uuid)s")


class UnableToAutoAllocateNetwork(Invalid):
    msg_fmt = ("Unable to automatically allocate a network for project "
               "%(project_id)s")


class FixedIpAlreadyInUse(NovaException):
    msg_fmt = ("Fixed IP address %(address)s is already in use on instance "
               "%(instance_uuid)s.")
    code = 400


class NoMoreFixedIps(NovaException):
    msg_fmt = "No fixed IP addresses available for network: %(net)s"


class InvalidFixedIpAndMaxCountRequest(Invalid):
    msg_fmt = "Failed to launch instances: %(reason)s"


class SecurityGroupNotFound(NotFound):
    msg_fmt = "Security group %(security_group_id)s not found."


class SecurityGroupNotFoundForProject(SecurityGroupNotFound):
    msg_fmt = ("Security group %(security_group_id)s not found for project "
               "%(project_id)s.")


class SecurityGroupExistsForInstance(Invalid):
    msg_fmt = ("Security group %(security_group_id)s is already associated "
               "with the instance %(instance_id)s")


class SecurityGroupNotExistsForInstance(Invalid):
    msg_fmt = ("Security group %(security_group_id)s is not associated with "
               "the instance %(instance_id)s")


class SecurityGroupRuleExists(Invalid):
    msg_fmt = "Rule already exists in group: %(rule)s"


class SecurityGroupLimitExceeded(OverQuota):
    msg_fmt = "Maximum number of security groups or rules exceeded"


class SecurityGroupCannotBeApplied(Invalid):
    msg_fmt = ("Network requires port_security_enabled and subnet associated "
               "in order to apply security groups.")


class NoUniqueMatch(NovaException):
    msg_fmt = "No Unique Match Found."
    code = 409


class FloatingIpNotFound(NotFound):
    msg_fmt = "Floating IP not found for ID %(id)s."


class FloatingIpNotFoundForAddress(FloatingIpNotFound):
    msg_fmt = "Floating IP not found for address %(address)s."


class FloatingIpPoolNotFound(NotFound):
    msg_fmt = "Floating IP pool not found."


class NoMoreFloatingIps(FloatingIpNotFound):
    msg_fmt = "Zero floating IPs available."


class FloatingIpLimitExceeded(OverQuota):
    msg_fmt = "Maximum number of floating IPs exceeded"


class FloatingIpAssociated(NovaException):
    msg_fmt = "Floating IP %(address)s is associated."
    code = 409


class FloatingIpBadRequest(Invalid):
    msg_fmt = "Bad floating IP request: %(reason)s"


class VolumeNotFound(NotFound):
    msg_fmt = "Volume %(volume_id)s could not be found."


class SnapshotNotFound(NotFound):
    msg_fmt = "Snapshot %(snapshot_id)s could not be found."


class VolumeAttachmentNotFound(NotFound):
    msg_fmt = "Volume attachment %(attachment_id)s could not be found."


class InvalidVolume(Invalid):
    msg_fmt = "Invalid volume: %(reason)s"


class CinderConnectionFailed(NovaException):
    msg_fmt = "Connection to cinder host failed: %(reason)s"


class VolumeLimitExceeded(OverQuota):
    msg_fmt = "Volume resource quota exceeded"


class BuildAbortException(NovaException):
    msg_fmt = "Build of instance %(instance_uuid)s aborted: %(reason)s"


class ComputeResourcesUnavailable(ServiceUnavailable):
    msg_fmt = "Insufficient compute resources: %(reason)s."


class AllocationDeleteFailed(NovaException):
    msg_fmt = ("Failed to delete allocations for consumer %(consumer_uuid)s. "
               "Error: %(error)s")
    code = 409


class TooManyInstances(OverQuota):
    msg_fmt = ("Quota exceeded for %(overs)s: Requested %(req)s, but already "
               "used %(used)s of %(allowed)s %(overs)s")


# -- server create (API): Nova's names and messages --
class InvalidRequest(Invalid):
    msg_fmt = "The request is invalid."


class InvalidMetadata(Invalid):
    msg_fmt = "Invalid metadata: %(reason)s"


class InstanceUserDataMalformed(NovaException):
    msg_fmt = "User data needs to be valid base 64."
    code = 400


class ConfigDriveInvalidValue(Invalid):
    msg_fmt = "Invalid value for Config Drive option: %(option)s"


class AutoDiskConfigDisabledByImage(Invalid):
    msg_fmt = ("Requested image %(image)s has automatic disk resize "
               "disabled.")


class CertificateValidationFailed(NovaException):
    msg_fmt = ("Image signature certificate validation failed for "
               "certificate: %(cert_uuid)s. %(reason)s")
    code = 400


class MultiplePortsNotApplicable(Invalid):
    msg_fmt = "Failed to launch instances: %(reason)s"


class AmbiguousHostnameForMultipleInstances(Invalid):
    msg_fmt = "Unable to allocate a single hostname to multiple instances"


class InvalidImageConfigDrive(Invalid):
    msg_fmt = "Image's config drive option '%(config_drive)s' is invalid"


class FlavorMemoryTooSmall(NovaException):
    msg_fmt = "Flavor's memory is too small for requested image."
    code = 400


class FlavorDiskSmallerThanImage(NovaException):
    msg_fmt = ("Flavor's disk is too small for requested image. Flavor disk "
               "is %(flavor_size)i bytes, image is %(image_size)i bytes.")
    code = 400


class FlavorDiskSmallerThanMinDisk(NovaException):
    msg_fmt = ("Flavor's disk is smaller than the minimum size specified in "
               "image metadata. Flavor disk is %(flavor_size)i bytes, "
               "minimum size is %(image_min_disk)i bytes.")
    code = 400


class VolumeSmallerThanMinDisk(NovaException):
    msg_fmt = ("Volume is smaller than the minimum size specified in image "
               "metadata. Volume size is %(volume_size)i bytes, minimum "
               "size is %(image_min_disk)i bytes.")
    code = 400


class BootFromVolumeRequiredForZeroDiskFlavor(Forbidden):
    msg_fmt = ("Only volume-backed servers are allowed for flavors with "
               "zero disk.")


class OnsetFileLimitExceeded(OverQuota):
    msg_fmt = "Personality file limit exceeded"


class OnsetFilePathLimitExceeded(OverQuota):
    msg_fmt = "Personality file path exceeds maximum %(allowed)s"


class OnsetFileContentLimitExceeded(OverQuota):
    msg_fmt = "Personality file content exceeds maximum %(allowed)s"


class InvalidBDM(Invalid):
    msg_fmt = "Block Device Mapping is Invalid."


class InvalidBDMFormat(InvalidBDM):
    msg_fmt = "Block Device Mapping is Invalid: %(details)s"


class InvalidBDMSnapshot(InvalidBDM):
    msg_fmt = "Block Device Mapping is Invalid: failed to get snapshot %(id)s."


class InvalidBDMVolume(InvalidBDM):
    msg_fmt = "Block Device Mapping is Invalid: failed to get volume %(id)s."


class InvalidBDMImage(InvalidBDM):
    msg_fmt = "Block Device Mapping is Invalid: failed to get image %(id)s."


class InvalidBDMBootSequence(InvalidBDM):
    msg_fmt = ("Block Device Mapping is Invalid: Boot sequence for the "
               "instance and image/block device mapping combination is not "
               "valid.")


class InvalidBDMLocalsLimit(InvalidBDM):
    msg_fmt = ("Block Device Mapping is Invalid: You specified more local "
               "devices than the limit allows")


class InvalidBDMEphemeralSize(InvalidBDM):
    msg_fmt = ("Ephemeral disks requested are larger than the instance type "
               "allows. If no size is given in one block device mapping, "
               "flavor ephemeral size will be used.")


class InvalidBDMSwapSize(InvalidBDM):
    msg_fmt = "Swap drive requested is larger than instance type allows."


class InvalidBDMDiskBus(InvalidBDM):
    msg_fmt = ("Block Device Mapping is invalid: Device bus %(disk_bus)s is "
               "not supported.")


class InvalidCidr(Invalid):
    msg_fmt = "%(cidr)s is not a valid IP network."


class InvalidIpProtocol(Invalid):
    msg_fmt = "Invalid IP protocol %(protocol)s."


class InvalidPortRange(Invalid):
    msg_fmt = "Invalid port range %(from_port)s:%(to_port)s. %(msg)s"


class InvalidID(Invalid):
    msg_fmt = "Invalid ID received %(id)s."


class FixedIpNotFoundForAddress(NotFound):
    msg_fmt = "Fixed IP not found for address %(address)s."


class FloatingIpNotAssociated(NovaException):
    msg_fmt = "Floating IP %(address)s is not associated."
    code = 400


class VolumeNotCreated(NovaException):
    msg_fmt = ("Volume %(volume_id)s did not finish being created even after "
               "we waited %(seconds)s seconds or %(attempts)s attempts. And "
               "its status is %(volume_status)s.")


class InstanceFaultRollback(NovaException):
    """A driver undid its work: the instance goes back to its state."""

    def __init__(self, inner_exception=None):
        self.inner_exception = inner_exception
        super().__init__("Instance rollback performed due to: %s"
                         % inner_exception)


class ConsoleNotAvailable(NotFound):
    msg_fmt = "Guest does not have a console available."


class ConsoleTypeInvalid(Invalid):
    msg_fmt = "Invalid console type %(console_type)s"


class ConsoleTypeUnavailable(Invalid):
    msg_fmt = "Unavailable console type %(console_type)s."


class UnsupportedRescueImage(Invalid):
    msg_fmt = "Requested rescue image '%(image)s' is not supported"


class InvalidBDMVolumeNotBootable(InvalidBDM):
    msg_fmt = "Block Device %(id)s is not bootable."


class MismatchVolumeAZException(Invalid):
    msg_fmt = ("The availability zone between the server and its attached "
               "volumes do not match: %(reason)s.")


class InvalidToken(Invalid):
    msg_fmt = "The token '%(token)s' is invalid or has expired"


class DevicePathInUse(Invalid):
    msg_fmt = "The supplied device path (%(path)s) is in use."
    code = 409


class TooManyDiskDevices(InvalidBDM):
    msg_fmt = ("The maximum allowed number of disk devices (%(maximum)d) to "
               "attach to a single instance has been exceeded.")
    code = 403


class AttachInterfaceNotSupported(Invalid):
    msg_fmt = ("Attaching interfaces is not supported for instance "
               "%(instance_uuid)s.")


class NetworkInterfaceTaggedAttachNotSupported(Invalid):
    msg_fmt = ("Tagged network interface attachment is not supported by "
               "this compute service.")


class AllocationMoveFailed(NovaException):
    msg_fmt = ("Failed to move allocations from consumer %(source_consumer)s "
               "to consumer %(target_consumer)s. Error: %(error)s")


class CannotResizeToSameFlavor(NovaException):
    msg_fmt = "When resizing, instances must change flavor!"


class CannotResizeDisk(NovaException):
    msg_fmt = "Server disk was unable to be resized because: %(reason)s"


class CannotMigrateToSameHost(NovaException):
    msg_fmt = ("Cannot migrate to the host where the server exists "
               "currently.")


class UnableToMigrateToSelf(Invalid):
    msg_fmt = ("Unable to migrate instance (%(instance_id)s) to current "
               "host (%(host)s).")


class InvalidMigrationState(Invalid):
    msg_fmt = ("Migration %(migration_id)s state of instance "
               "%(instance_uuid)s is %(state)s. Cannot %(method)s while the "
               "migration is in this state.")


class VolumeTaggedAttachNotSupported(Invalid):
    msg_fmt = ("Tagged volume attachment is not supported by this compute "
               "service.")
