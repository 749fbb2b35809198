"""Quota of a server create: instances, cores and ram, and the members of
a server group.

Nova's rules (check_num_instances_quota): a multi-create that does not fit
is cut down to what the headroom allows when that is still at least
min_count, else it fails with "Quota exceeded for ...".

Instances are counted from the instance mappings (as Nova does from the
API database), so servers accepted but not yet in a cell count: two
concurrent requests see each other's servers, and the re-check after
writing ([quota]/recheck_quota) catches the race that is left. Cores and
ram come from the cells, so unplaced servers' are not counted (their
flavors live in BuildRequest blobs); the conductor's re-check covers those
once the instances exist in a cell.
"""
from keel.compute_api import quota
from keel.db import session
from keel import exception
from keel import objects

_RESOURCES = ("instances", "cores", "ram")


def _usage(ctx, project_id, user_id, needed):
    """Counts of the ``needed`` resources. Instances from the instance
    mappings not queued for delete (Nova's API-database count: includes
    the servers not yet in a cell, never a server twice while the
    conductor moves it into its cell); cores and ram from the cells.
    A resource without a limit is not counted at all."""
    zero = {name: 0 for name in _RESOURCES}
    counts = {"project": dict(zero), "user": dict(zero)}
    if needed & {"cores", "ram"}:
        counts = quota.count_instances(ctx, project_id, user_id)
    if "instances" in needed:
        mapped = objects.InstanceMappingList.get_counts(ctx, project_id,
                                                        user_id)
        counts["project"]["instances"] = mapped["project"]["instances"]
        counts["user"]["instances"] = mapped["user"]["instances"]
    return counts


def _binding(plimits, ulimits, counts):
    """``(limits, used)`` per resource from the scope with the least
    headroom (a user's own limit may be lower than its project's);
    ``limits["scope"]`` says which scope bound each resource."""
    limits, used, scopes = {}, {}, {}
    for name in _RESOURCES:
        best = None
        for scope, lim in (("project", plimits[name]),
                           ("user", ulimits[name])):
            if lim == quota.UNLIMITED:
                continue
            use = counts[scope][name]
            if best is None or lim - use < best[1] - best[2]:
                best = (scope, lim, use)
        scope, limits[name], used[name] = best or (
            "project", quota.UNLIMITED, counts["project"][name])
        scopes[name] = scope
    limits["scope"] = scopes
    return limits, used


def _over(limits, used, deltas):
    return [n for n in _RESOURCES if limits[n] != quota.UNLIMITED and
            used[n] + deltas[n] > limits[n]]


def _raise(overs, limits, used, requested):
    raise exception.TooManyInstances(
        overs=", ".join(overs),
        req=", ".join(str(requested[n]) for n in overs),
        used=", ".join(str(used[n]) for n in overs),
        allowed=", ".join(str(limits[n]) for n in overs))


def read_limits(ctx):
    """The caller's ``(project limits, user limits)`` (one read), for
    ``check_num_instances``; None with the no-op driver."""
    if quota.is_noop():
        return None
    return quota.limits(ctx, ctx.project_id, ctx.user_id)


def check_num_instances(ctx, flavor, min_count, max_count, limits=None):
    """``(count, limits)``: how many instances (<= max_count) the quota
    allows, and the limits for the re-check; TooManyInstances when not
    even min_count fit. ``limits``: what ``read_limits`` returned, when
    the caller read them already (with the flavor, in one transaction)."""
    if quota.is_noop():
        return max_count, None
    project_id, user_id = ctx.project_id, ctx.user_id
    # The limits and counts in one API-database transaction (one
    # connection checkout); the cells are read in parallel on their own,
    # and only when cores or ram have a limit.
    with session.api_reader(ctx):
        plimits, ulimits = limits or read_limits(ctx)
        needed = {n for n in _RESOURCES
                  if plimits[n] != quota.UNLIMITED or
                  ulimits[n] != quota.UNLIMITED}
        counts = _usage(ctx, project_id, user_id, needed)
    limits, used = _binding(plimits, ulimits, counts)
    while True:
        deltas = {"instances": max_count, "cores": max_count * flavor.vcpus,
                  "ram": max_count * flavor.memory_mb}
        overs = _over(limits, used, deltas)
        if not overs:
            return max_count, limits
        # What each limited resource still has room for; unlimited ones
        # do not bound the count.
        allowed = max_count
        for name, per in (("instances", 1), ("cores", flavor.vcpus),
                          ("ram", flavor.memory_mb)):
            if limits[name] != quota.UNLIMITED and per:
                allowed = min(allowed, (limits[name] - used[name]) // per)
        if min_count <= allowed < max_count:
            max_count = allowed
            continue
        num = str(min_count) if min_count == max_count else \
            f"{min_count}-{max_count}"
        _raise(overs, limits, used, {"instances": num,
                                     "cores": deltas["cores"],
                                     "ram": deltas["ram"]})


def recheck(ctx, limits, flavor, num_instances):
    """After writing: the request's own servers are now counted, so a
    concurrent request that got in between shows up as an overrun. Only
    instances can have moved (cores and ram are counted in the cells,
    where these servers are not yet): one query, the limits as read."""
    if limits is None:
        return
    limit = limits["instances"]
    if limit == quota.UNLIMITED:
        return
    counts = objects.InstanceMappingList.get_counts(ctx, ctx.project_id,
                                                    ctx.user_id)
    used = counts[limits["scope"]["instances"]]["instances"]
    if used > limit:
        _raise(["instances"], limits, {"instances": used - num_instances},
               {"instances": num_instances})


def check_group_members(ctx, group, count, recheck_only=False):
    """Room in the server group for ``count`` more members."""
    try:
        quota.check_deltas(ctx, {"server_group_members":
                                 0 if recheck_only else count},
                           ctx.project_id, user_id=ctx.user_id,
                           group_uuid=group.uuid)
    except exception.OverQuota:
        raise exception.OverQuota("Quota exceeded, too many servers in "
                                  "group")
