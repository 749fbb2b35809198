"""changePassword on the compute host (Nova's set_admin_password): the
guest must be running; the driver sets the password; the task state
``updating_password`` the API set goes back to no task in every outcome,
as a compare-and-swap, so a delete that took over is not overwritten.

Outcomes the API maps: InstancePasswordSetFailed (not running, or the
driver failed in an unexpected way: the reason never carries the driver's
words, which might contain the password), InstanceAgentNotEnabled and
SetAdminPasswdNotSupported (409), NotImplementedError (501)."""
from oslo_log import log as logging

from keel.compute.ops import power
from keel import exception
from keel.virt import power_state

LOG = logging.getLogger(__name__)

UPDATING_PASSWORD = "updating_password"


def _clear_task(instance):
    instance.task_state = None
    instance.save(expected_task_state=UPDATING_PASSWORD)


def set_admin_password(mgr, context, instance, new_pass):
    with mgr.instance_lock(instance.uuid):
        if power.get_power_state(mgr, instance) != power_state.RUNNING:
            _clear_task(instance)
            raise exception.InstancePasswordSetFailed(
                instance=instance.uuid,
                reason=f"instance {instance.uuid} is not running")
        try:
            mgr.driver.set_admin_password(instance, new_pass)
        except (exception.InstanceAgentNotEnabled,
                exception.SetAdminPasswdNotSupported) as exc:
            LOG.info("set_admin_password refused for %s: %s",
                     instance.uuid, exc.format_message())
            _clear_task(instance)
            raise
        except NotImplementedError:
            LOG.warning("set_admin_password is not implemented by this "
                        "driver or guest instance %s.", instance.uuid)
            _clear_task(instance)
            raise NotImplementedError(
                "set_admin_password is not implemented by this driver or "
                "guest instance.")
        except exception.UnexpectedTaskStateError:
            raise
        except Exception:  # noqa: BLE001 - never echo the driver's words
            LOG.exception("set_admin_password failed for %s", instance.uuid)
            raise exception.InstancePasswordSetFailed(
                instance=instance.uuid, reason="error setting admin password")
        LOG.info("Admin password set for %s", instance.uuid)
        _clear_task(instance)
