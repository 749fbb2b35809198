"""Placement allocations of a move (Nova's move_allocations), shared by
cold migration, resize and live migration in the computes and the
conductor: while a move runs the migration record is the consumer of the
source host's resources and the instance the consumer of the
destination's, so a confirm (or a finished live migration) drops the
migration's and a revert or rollback hands them back. Each move is one
atomic POST /allocations guarded by both consumers' generations.
"""
from oslo_log import log as logging

from keel import exception

LOG = logging.getLogger(__name__)

VERSION = "1.28"   # consumer generations in POST /allocations


def placement(client):
    """The raw Placement client (a ReportClient wraps one; either is
    accepted)."""
    return getattr(client, "placement", client)


def move_allocations(client, context, source, target):
    """Give ``source``'s allocations to ``target`` (replacing target's);
    False when the source holds none. A generation conflict raises
    AllocationMoveFailed: someone else changed either consumer."""
    pl = placement(client)
    src = pl.get_allocations(context, source)
    if not src.get("allocations"):
        LOG.debug("No allocations of %s to move to %s", source, target)
        return False
    dst = pl.get_allocations(context, target)
    allocs = {rp: {"resources": a["resources"]}
              for rp, a in src["allocations"].items()}
    owner = {"project_id": src["project_id"], "user_id": src["user_id"]}
    body = {source: dict(owner, allocations={},
                         consumer_generation=src.get("consumer_generation")),
            target: dict(owner, allocations=allocs,
                         consumer_generation=dst.get("consumer_generation"))}
    resp = pl.request(context, "POST", "/allocations", VERSION, json=body)
    if resp.status_code != 204:
        raise exception.AllocationMoveFailed(
            source_consumer=source, target_consumer=target,
            error=resp.text)
    return True


def give_back(client, context, instance_uuid, migration_uuid):
    """A failed or rolled back move: the migration's hold on the source
    returns to the instance (replacing any destination claim). Never
    raises: the rollback calling it must finish."""
    try:
        if not move_allocations(client, context, migration_uuid,
                                instance_uuid):
            LOG.warning("Migration %s held no allocations to give back",
                        migration_uuid)
    except Exception:  # noqa: BLE001 - see docstring
        LOG.exception("Could not give %s its allocations back",
                      instance_uuid)


def allocations_of(client, context, consumer):
    """``{rp_uuid: {"resources": {...}, ...}}`` of one consumer."""
    return placement(client).get_allocations(context, consumer).get(
        "allocations") or {}


def total_resources(allocations):
    """``{resource class: amount}`` summed over providers."""
    total = {}
    for alloc in allocations.values():
        for rc, amount in alloc["resources"].items():
            total[rc] = total.get(rc, 0) + amount
    return total


def delete_allocations(client, context, consumer):
    """Drop a consumer's allocations (a confirmed migration's source)."""
    return placement(client).delete_allocations(context, consumer)
