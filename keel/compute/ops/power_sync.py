"""Keeping the database's power state in step with the hypervisor.

Drivers report guest transitions as lifecycle events (the KubeVirt driver
from its watch, the fake driver as it changes state); ``handle_events``
turns each into the power state it implies and applies Nova's
_sync_instance_power_state rules. A periodic pass over this host's
instances (``sync_power_states``) is the safety net for a lost event.

The rules, by the instance's vm_state, once no task is in progress:
the DB power_state always follows the hypervisor; an ACTIVE instance whose
guest is off, crashed or suspended is stopped through the normal stop path
(an instance action "stop" and the stop_instance cast), a STOPPED one whose
guest runs again is forced off, a PAUSED one whose guest went off is
stopped; building, rescued, resized, suspended and errored instances are
left alone. An instance with a task in progress is skipped: that task owns
its state and a later event or pass will look again.
"""
from oslo_log import log as logging

from keel.compute.ops import power
from keel.compute.ops import states
from keel.conf import CONF
from keel import context as keel_context
from keel import exception
from keel import objects
from keel.virt import event as virtevent
from keel.virt import power_state

LOG = logging.getLogger(__name__)

_EVENT_POWER_STATES = {
    virtevent.EVENT_LIFECYCLE_STOPPED: power_state.SHUTDOWN,
    virtevent.EVENT_LIFECYCLE_STARTED: power_state.RUNNING,
    virtevent.EVENT_LIFECYCLE_PAUSED: power_state.PAUSED,
    virtevent.EVENT_LIFECYCLE_RESUMED: power_state.RUNNING,
    virtevent.EVENT_LIFECYCLE_SUSPENDED: power_state.SUSPENDED,
    virtevent.EVENT_LIFECYCLE_POSTCOPY_STARTED: power_state.PAUSED,
    virtevent.EVENT_LIFECYCLE_MIGRATION_COMPLETED: power_state.SHUTDOWN,
}
_IGNORED_VM_STATES = (states.BUILDING, power.RESCUED, "resized",
                      power.SUSPENDED, states.ERROR)
_MIGRATION_EVENTS = (virtevent.EVENT_LIFECYCLE_POSTCOPY_STARTED,
                     virtevent.EVENT_LIFECYCLE_MIGRATION_COMPLETED)


def handle_events(mgr, event):
    """The driver's listener: lifecycle events sync the power state; an
    instance that is gone is nothing to sync."""
    if not isinstance(event, virtevent.LifecycleEvent):
        LOG.debug("Ignoring event %s", event)
        return
    if not CONF.workarounds.handle_virt_lifecycle_events:
        LOG.debug("Lifecycle event %s ignored ([workarounds]/"
                  "handle_virt_lifecycle_events is off)", event)
        return
    try:
        handle_lifecycle_event(mgr, event)
    except exception.InstanceNotFound:
        LOG.debug("Event %s arrived for non-existent instance", event)


def handle_lifecycle_event(mgr, event):
    LOG.info("VM %s (Lifecycle Event) of %s", event.get_name(), event.uuid)
    vm_power_state = _EVENT_POWER_STATES.get(event.transition)
    if vm_power_state is None:
        LOG.warning("Unexpected lifecycle event: %s", event.transition)
        return
    if event.transition in _MIGRATION_EVENTS:
        # The live migration itself records where the guest ends up; the
        # source's view of a migrating guest is not the instance's state.
        LOG.debug("Migration lifecycle event %s left to the migration",
                  event)
        return
    if mgr.has_task_for(event.uuid):
        # The operation running on it (a build, a stop...) records the
        # guest's state itself; Nova reads the instance only to find its
        # task_state set and skip -- a conductor round trip per event.
        LOG.debug("Lifecycle event %s left to the operation in flight",
                  event)
        return
    ctxt = keel_context.get_admin_context(read_deleted="yes")
    instance = objects.Instance.get_by_uuid(ctxt, event.uuid,
                                            expected_attrs=[])
    current = _current_power_state(mgr, instance)
    if current is not None and current != vm_power_state:
        # A late event (a watch lagging behind a hard reboot) must not
        # stop a guest that runs again: the hypervisor's word now wins
        # (what the delay of libvirt's stop events achieves in Nova).
        LOG.info("Lifecycle event %s of %s is stale: the guest's power "
                 "state is now %s", event.get_name(), event.uuid, current)
        vm_power_state = current
    sync_instance_power_state(mgr, ctxt, instance, vm_power_state)


def _current_power_state(mgr, instance):
    """The driver's present view of the guest, None if it cannot say (a
    guest that is gone keeps the event's state, as Nova acts on it)."""
    try:
        return mgr.driver.get_info(instance).state
    except exception.InstanceNotFound:
        return None
    except Exception:  # noqa: BLE001 - fall back to the event's state
        LOG.debug("Could not read the power state of %s", instance.uuid,
                  exc_info=True)
        return None


def sync_instance_power_state(mgr, context, db_instance, vm_power_state):
    """Nova's _sync_instance_power_state (see the module doc)."""
    # Re-read: narrow (never close) the window against a concurrent task.
    db_instance.refresh()
    if db_instance.host != mgr.host:
        LOG.info("During the sync_power process the instance %s has moved "
                 "from host %s to host %s", db_instance.uuid, mgr.host,
                 db_instance.host)
        return
    if db_instance.task_state is not None:
        LOG.info("During sync_power_state the instance %s has a pending "
                 "task (%s). Skip.", db_instance.uuid,
                 db_instance.task_state)
        return
    vm_state = db_instance.vm_state
    if vm_power_state != db_instance.power_state:
        LOG.info("During _sync_instance_power_state the DB power_state (%s) "
                 "of %s does not match the vm_power_state from the "
                 "hypervisor (%s). Updating power_state in the DB to match "
                 "the hypervisor.", db_instance.power_state,
                 db_instance.uuid, vm_power_state)
        db_instance.power_state = vm_power_state
        db_instance.save()
    if vm_state in _IGNORED_VM_STATES:
        return
    if vm_state == states.ACTIVE:
        if vm_power_state in (power_state.SHUTDOWN, power_state.CRASHED):
            LOG.warning("Instance %s shutdown by itself. Calling the stop "
                        "API.", db_instance.uuid)
            _stop(mgr, context, db_instance)
        elif vm_power_state == power_state.SUSPENDED:
            LOG.warning("Instance %s is suspended unexpectedly. Calling the "
                        "stop API.", db_instance.uuid)
            _stop(mgr, context, db_instance)
        elif vm_power_state == power_state.PAUSED:
            # Outside tools pause guests for a while (snapshots, backups):
            # nothing tells such a pause from a lasting one, so ignore it.
            LOG.warning("Instance %s is paused unexpectedly. Ignore.",
                        db_instance.uuid)
        elif vm_power_state == power_state.NOSTATE:
            LOG.warning("Instance %s is unexpectedly not found. Ignore.",
                        db_instance.uuid)
    elif vm_state == states.STOPPED:
        if vm_power_state not in power.OFF_STATES:
            LOG.warning("Instance %s is not stopped. Calling the stop API.",
                        db_instance.uuid)
            _stop(mgr, context, db_instance)
    elif vm_state == power.PAUSED:
        if vm_power_state in (power_state.SHUTDOWN, power_state.CRASHED):
            LOG.warning("Paused instance %s shutdown by itself. Calling the "
                        "stop API.", db_instance.uuid)
            _stop(mgr, context, db_instance)
    elif vm_state in (states.SOFT_DELETED, states.DELETED):
        if vm_power_state not in (power_state.NOSTATE, power_state.SHUTDOWN):
            LOG.warning("Instance %s is not (soft-)deleted.",
                        db_instance.uuid)


def _stop(mgr, context, instance):
    """What the compute API's (force_)stop does, from this host: claim the
    idle instance with task powering-off (a CAS: a task that started since
    wins), record the "stop" action, cast stop_instance to ourselves. Any
    failure is only logged: the next event or periodic pass retries."""
    from keel.compute import rpcapi as compute_rpcapi
    ctxt = keel_context.get_admin_context()
    try:
        instance.task_state = power.POWERING_OFF
        instance.progress = 0
        instance.save(expected_task_state=[None])
        objects.InstanceAction.action_start(ctxt, instance.uuid, "stop",
                                            want_result=False)
        compute_rpcapi.ComputeAPI().stop_instance(ctxt, instance,
                                                  do_cast=True)
    except Exception:  # noqa: BLE001 - see the docstring
        LOG.exception("error during stop() in sync_power_state for %s",
                      instance.uuid)


def query_driver_power_state_and_sync(mgr, context, db_instance):
    if db_instance.task_state is not None:
        LOG.info("During sync_power_state the instance %s has a pending "
                 "task (%s). Skip.", db_instance.uuid,
                 db_instance.task_state)
        return
    vm_power_state = power.get_power_state(mgr, db_instance)
    try:
        sync_instance_power_state(mgr, context, db_instance, vm_power_state)
    except exception.InstanceNotFound:
        pass  # deleted during the sync: nothing to do


def sync_power_states(mgr, context):
    """The periodic pass over this host's instances: one query for the
    instances, one driver look-up each; an instance with a task in progress
    is skipped, never waited for."""
    db_instances = objects.InstanceList.get_by_host(context, mgr.host,
                                                    expected_attrs=[])
    try:
        num_vm = len(mgr.driver.list_instance_uuids())
    except Exception:  # noqa: BLE001 - the driver may not be ready
        num_vm = None
    if num_vm is not None and num_vm != len(db_instances):
        LOG.warning("While synchronizing instance power states, found %d "
                    "instances in the database and %d instances on the "
                    "hypervisor.", len(db_instances), num_vm)
    synced = []
    for db_instance in db_instances:
        if db_instance.task_state is not None:
            # Busy (a build holds its lock for minutes): never wait for it.
            LOG.info("During sync_power_state the instance %s has a pending "
                     "task (%s). Skip.", db_instance.uuid,
                     db_instance.task_state)
            continue
        try:
            # The driver and the database are read as one: an operation
            # on this instance finishes first (Nova's synchronized).
            with mgr.instance_lock(db_instance.uuid):
                query_driver_power_state_and_sync(mgr, context, db_instance)
            synced.append(db_instance.uuid)
        except Exception:  # noqa: BLE001 - one instance never stops all
            LOG.exception("Periodic sync_power_state task had an error "
                          "while processing instance %s", db_instance.uuid)
    return synced
