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
