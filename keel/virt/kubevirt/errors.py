"""Exceptions of the KubeVirt driver, named after Nova's where Nova has
one (keel.exception does not define these yet)."""
from keel import exception


class RescheduledException(exception.NovaException):
    """The build failed on this node but may succeed on another one."""
    msg_fmt = "Build of instance %(instance_uuid)s was re-scheduled: " \
              "%(reason)s"


class InstanceDeployFailure(exception.NovaException):
    msg_fmt = "Failed to deploy instance %(instance_uuid)s: %(reason)s"


class InstancePowerOnFailure(exception.NovaException):
    msg_fmt = "Failed to power on instance %(instance_uuid)s: %(reason)s"


class InstancePowerOffFailure(exception.NovaException):
    msg_fmt = "Failed to power off instance %(instance_uuid)s: %(reason)s"


class InstanceRebootFailure(exception.NovaException):
    msg_fmt = "Failed to reboot instance %(instance_uuid)s: %(reason)s"



class InstanceStateTimeout(exception.NovaException):
    msg_fmt = "Instance %(instance_uuid)s: %(reason)s"


class InstanceNotReady(exception.Invalid):
    msg_fmt = "Instance %(instance_id)s is not ready"


class MigrationPreCheckError(exception.NovaException):
    msg_fmt = "Migration pre-check error: %(reason)s"
    code = 400
