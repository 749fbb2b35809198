"""Image service and virt driver failures (Nova's names).

Part of keel.exception (re-exported there, and named there on the wire):
import them from keel.exception."""
from keel.exception import *  # noqa: F401,F403 - the base classes


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


class InstancePasswordSetFailed(NovaException):
    msg_fmt = "Failed to set admin password on %(instance)s because %(reason)s"
    safe = True


class SetAdminPasswdNotSupported(Invalid):
    msg_fmt = "Set admin password is not supported"
    code = 409


class InstanceAgentNotEnabled(Invalid):
    msg_fmt = "Guest agent is not enabled for the instance"
    safe = True


class PreserveEphemeralNotSupported(Invalid):
    msg_fmt = ("The current driver does not support preserving ephemeral "
               "partitions.")


class UnsupportedPolicyException(Invalid):
    msg_fmt = "ServerGroup policy is not supported: %(reason)s"


class ComputeServiceInUse(NovaException):
    msg_fmt = "Compute service of %(host)s is still in use."


class InstanceEvacuateNotSupported(Invalid):
    msg_fmt = "Instance evacuate is not supported."


class InvalidSharedStorage(NovaException):
    msg_fmt = "%(path)s is not on shared storage: %(reason)s"

home_in_keel_exception(globals())
