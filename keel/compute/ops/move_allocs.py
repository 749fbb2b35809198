"""Placement allocations of a cold move (Nova's move_allocations): during a
resize the migration record is the consumer of the source host's
resources and the instance the consumer of the destination's, so a
confirm drops the migration's and a revert hands them back. Each move is
one atomic POST /allocations guarded by both consumers' generations.
"""
from oslo_log import log as logging

from keel import exception

LOG = logging.getLogger(__name__)

VERSION = "1.28"   # consumer generations in POST /allocations


def _placement(client):
    # A ReportClient wraps the raw client; either is accepted.
    return getattr(client, "placement", client)


def move_allocations(client, context, source, target):
    """Give ``source``'s allocations to ``target`` (replacing target's);
    False when the source holds none. A generation conflict raises
    AllocationMoveFailed: someone else changed either consumer."""
    pl = _placement(client)
    src = pl.get_allocations(context, source)
    if not src.get("allocations"):
        LOG.debug("No allocations of %s to move to %s", source, target)
        return False
    dst = pl.get_allocations(context, target)
    allocs = {rp: {"resources": a["resources"]}
              for rp, a in src["allocations"].items()}
    body = {
        source: {"allocations": {}, "project_id": src["project_id"],
                 "user_id": src["user_id"],
                 "consumer_generation": src.get("consumer_generation")},
        target: {"allocations": allocs, "project_id": src["project_id"],
                 "user_id": src["user_id"],
                 "consumer_generation": dst.get("consumer_generation")},
    }
    resp = pl.request(context, "POST", "/allocations", VERSION, json=body)
    if resp.status_code != 204:
        raise exception.AllocationMoveFailed(
            source_consumer=source, target_consumer=target,
            error=resp.text)
    return True


def allocations_of(client, context, consumer):
    """``{rp_uuid: {"resources": {...}, ...}}`` of one consumer."""
    return _placement(client).get_allocations(context, consumer).get(
        "allocations") or {}


def delete_allocations(client, context, consumer):
    """Drop a consumer's allocations (a confirmed migration's source)."""
    return _placement(client).delete_allocations(context, consumer)
