"""The one question the build asks the API database often: which of these
build requests still exist? Asked for a whole request at once, reading
only the uuids (BuildRequest objects would unpack the stored instance of
each just to learn that it is there)."""
import sqlalchemy as sa

from keel.db.api import models as api_models
from keel.db import session as db_session


def build_requests_present(context, instance_uuids):
    """The subset of ``instance_uuids`` that still have a BuildRequest."""
    if not instance_uuids:
        return set()
    br = api_models.BuildRequest
    with db_session.api_reader(context) as s:
        return set(s.execute(sa.select(br.instance_uuid).where(
            br.instance_uuid.in_(list(instance_uuids)))).scalars())


def take_build_requests(context, build_requests, stamp):
    """The uuids of ``build_requests`` this delivery may build.

    A BuildRequest can be delivered twice: the safety net re-sends one
    whose message looks lost while the original may only be queued behind
    others. Each delivery carries the row's ``updated_at`` as it was when
    sent (None from the API; the re-drive's own stamp from the net); the
    one whose compare-and-swap from that value to ``stamp`` succeeds
    builds, any other copy leaves it alone. Without this both would
    schedule and claim, and the second claim lands on top of the first.
    """
    br = api_models.BuildRequest
    taken = set()
    with db_session.api_writer(context) as s:
        for req in build_requests:
            sent = req.updated_at if req.obj_attr_is_set("updated_at") \
                else None
            same = br.updated_at.is_(None) if sent is None else \
                br.updated_at == sent.replace(tzinfo=None)
            done = s.execute(
                sa.update(br).where(br.instance_uuid == req.instance_uuid,
                                    same).values(updated_at=stamp)
                .execution_options(synchronize_session=False))
            if done.rowcount == 1:
                taken.add(req.instance_uuid)
    return taken
