"""Failures of the API's server operations: create, actions, moves (Nova's names).

Part of keel.exception (re-exported there, and named there on the wire):
import them from keel.exception."""
from keel.exception import *  # noqa: F401,F403 - the base classes


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


class UnshelveInstanceInvalidState(InstanceInvalidState):
    msg_fmt = ('Specifying an availability zone or a host when unshelving '
               'server "%(instance_uuid)s" with status "%(state)s" is not '
               'supported. The server status must be SHELVED_OFFLOADED.')
    code = 409


class UnshelveHostNotInAZ(Invalid):
    msg_fmt = ('Host "%(host)s" is not in the availability zone '
               '"%(availability_zone)s".')
    code = 409


class UnshelveException(NovaException):
    msg_fmt = "Error during unshelve instance %(instance_id)s: %(reason)s"


home_in_keel_exception(globals())
