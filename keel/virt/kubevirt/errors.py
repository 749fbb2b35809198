"""Exceptions internal to the KubeVirt driver.

Failures the compute manager knows by name (RescheduledException,
InstanceDeployFailure, InstancePowerOnFailure, MigrationPreCheckError, ...)
are Nova's classes in ``keel.exception``; only what has no Nova equivalent
lives here.
"""
from keel import exception


class InstanceStateTimeout(exception.NovaException):
    """The guest did not reach the power state an operation waits for."""
    msg_fmt = "Instance %(instance_uuid)s: %(reason)s"


class SnapshotFailed(exception.NovaException):
    """KubeVirt could not snapshot or export the guest's disk."""
    msg_fmt = "Snapshot of instance %(instance_uuid)s failed: %(reason)s"
