"""Network (Neutron) and volume (Cinder) failures (Nova's names).

Part of keel.exception (re-exported there, and named there on the wire):
import them from keel.exception."""
from keel.exception import *  # noqa: F401,F403 - the base classes


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


class FixedIpNotFoundForInstance(NovaException):
    msg_fmt = "Instance %(instance_uuid)s does not have fixed IP '%(ip)s'."
    code = 404


class NetworkNotFoundForInstance(NetworkNotFound):
    msg_fmt = "Network could not be found for instance %(instance_id)s."


home_in_keel_exception(globals())
