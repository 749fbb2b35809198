"""First start and every start: databases migrated, cells mapped.

Each step is idempotent, so a restart on an existing state directory only
checks what is already there (a migration run twice is a no-op).
"""
import os

from oslo_log import log as logging

from keel import context as keel_context
from keel.db import migration

LOG = logging.getLogger(__name__)


def prepare(layout, transport_url):
    os.makedirs(layout.state_dir, exist_ok=True)
    migration.db_sync("api")
    migration.db_sync("main", connection=layout.cell0_db)
    migration.db_sync("main", connection=layout.cell1_db)
    _ensure_cells(layout, transport_url)
    _ensure_images(layout)
    from keel.allinone import flavors
    flavors.seed(layout.state_dir)


def _ensure_images(layout):
    from keel.allinone import images
    from keel.allinone import settings
    from keel.conf import CONF
    from keel.image import api as image_api
    settings.write_config(CONF, layout)
    image_api.reset()
    if image_api.use_local(CONF):
        images.seed(CONF.image_catalogue.path)


def _ensure_cells(layout, transport_url):
    from keel import objects
    objects.register_all()
    ctxt = keel_context.get_admin_context()
    cells = {c.uuid: c for c in objects.CellMappingList.get_all(ctxt)}
    if objects.CellMapping.CELL0_UUID not in cells:
        objects.CellMapping(ctxt, uuid=objects.CellMapping.CELL0_UUID,
                            name="cell0",
                            transport_url="none:///",
                            database_connection=layout.cell0_db,
                            disabled=False).create()
        LOG.info("Mapped cell0 to %s", layout.cell0_db)
    cell1 = next((c for c in cells.values() if c.name == "cell1"), None)
    if cell1 is not None and cell1.transport_url != transport_url:
        # A state directory of an older release (oslo.messaging's fake:/
        # bus): its services now listen on this process's bus.
        LOG.info("cell1 transport %s -> %s", cell1.transport_url,
                 transport_url)
        cell1.transport_url = transport_url
        cell1.save()
    if cell1 is None:
        from oslo_utils import uuidutils
        objects.CellMapping(ctxt, uuid=uuidutils.generate_uuid(),
                            name="cell1", transport_url=transport_url,
                            database_connection=layout.cell1_db,
                            disabled=False).create()
        LOG.info("Created cell1 on %s", layout.cell1_db)


def discover_hosts():
    """Map compute hosts that registered since the last call (idempotent)."""
    from keel.cmd import manage_cell_v2
    return manage_cell_v2.discover_hosts()
