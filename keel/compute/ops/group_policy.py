"""The late server-group check of a build (Nova's
_validate_instance_group_policy).

The scheduler enforces (anti-)affinity, but two requests scheduled at the
same moment can both pick this host for members of one anti-affinity
group. Once the claim has bound the instance here, the build checks again
under a per-group lock and reschedules on a violation. Members building
here right now count too: their host is not written yet, but their claim
is in the tracker.
"""
import threading
import weakref

from keel import exception
from keel import objects

_locks = weakref.WeakValueDictionary()
_guard = threading.Lock()


def _group_lock(group_uuid):
    with _guard:
        lock = _locks.get(group_uuid)
        if lock is None:
            lock = threading.Lock()
            _locks[group_uuid] = lock
    return lock


def scheduler_hints(filter_properties, request_spec=None):
    hints = {}
    if request_spec is not None and \
            request_spec.obj_attr_is_set("scheduler_hints"):
        hints = request_spec.scheduler_hints or {}
    return hints or (filter_properties or {}).get("scheduler_hints") or {}


def validate(mgr, context, instance, hints, nodename):
    """RescheduledException if building here breaks the group's policy."""
    group_hint = hints.get("group")
    if not group_hint:
        return
    if isinstance(group_hint, list):
        group_hint = group_hint[0]
    try:
        group = objects.InstanceGroup.get_by_hint(context, group_hint)
    except exception.InstanceGroupNotFound:
        return
    with _group_lock(group.uuid):
        if group.policy == "anti-affinity":
            _check_anti_affinity(mgr, context, instance, group, nodename)
        elif group.policy == "affinity":
            hosts = group.get_hosts(exclude=[instance.uuid])
            if hosts and mgr.host not in hosts:
                raise exception.RescheduledException(
                    instance_uuid=instance.uuid,
                    reason="Affinity instance group policy was violated.")


def _check_anti_affinity(mgr, context, instance, group, nodename):
    here = set(objects.InstanceList.get_uuids_by_host(context, mgr.host))
    if mgr.rt is not None:
        here |= mgr.rt.claimed_uuids()
    migrations = objects.MigrationList.get_in_progress_by_host_and_node(
        context, mgr.host, nodename)
    here |= {m.instance_uuid for m in migrations}
    # Re-read inside the lock: members added since the hint was resolved.
    group = objects.InstanceGroup.get_by_uuid(context, group.uuid)
    others = (here & set(group.members or [])) - {instance.uuid}
    rules = group.rules or {}
    max_server = int(rules.get("max_server_per_host", 1))
    if len(others) >= max_server:
        raise exception.RescheduledException(
            instance_uuid=instance.uuid,
            reason="Anti-affinity instance group policy was violated.")
