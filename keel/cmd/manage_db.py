"""``keel manage db ...`` and ``keel manage api_db ...`` (as nova-manage)."""
from keel.cmd import manage
from keel.conf import CONF
from keel import context
from keel.db.api import models
from keel.db import migration
from keel.db import session

CELL0_UUID = "00000000-0000-0000-0000-000000000000"

_CELL0_ERROR = (
    "ERROR: Could not access cell0.\n"
    "Has the nova_api database been created?\n"
    "Has the nova_cell0 database been created?\n"
    'Has "nova-manage api_db sync" been run?\n'
    'Has "nova-manage cell_v2 map_cell0" been run?\n'
    "Is [api_database]/connection set in nova.conf?\n"
    "Is the cell0 database connection URL correct?\n"
    "Error: %s")


def cell0_connection():
    """cell0's database URL from the API database, or None if unmapped."""
    with session.api_reader(context.get_admin_context()) as s:
        cell0 = s.query(models.CellMapping).filter_by(uuid=CELL0_UUID).first()
        return cell0.database_connection if cell0 else None


def _configured(group):
    """The connection of [group], or print Nova-style advice and None."""
    url = getattr(CONF, group).connection
    if not url:
        print(f"ERROR: [{group}]/connection is not set in the "
              "configuration file.")
    return url


@manage.category("db")
class DbCommands:
    """Class for managing the main database."""

    @manage.args("--local_cell", action="store_true",
                 help="Only sync db in the local cell: do not attempt to "
                      "fan-out to all cells")
    @manage.args("version", metavar="VERSION", nargs="?",
                 help="Database version")
    def sync(self, version=None, local_cell=False):
        """Sync the database up to the most recent version."""
        if not _configured("database"):
            return 1
        if not local_cell:
            # As Nova: the fan-out only covers cell0 besides the local cell.
            try:
                url = cell0_connection()
                if url is None:
                    print("WARNING: cell0 mapping not found - not syncing "
                          "cell0.")
                else:
                    migration.db_sync(migration.MAIN, version, connection=url)
            except Exception as exc:
                print(_CELL0_ERROR % exc)
                return 1
        migration.db_sync(migration.MAIN, version)
        return 0

    def version(self):
        """Print the current database version."""
        if not _configured("database"):
            return 1
        print(migration.db_version(migration.MAIN))
        return 0


@manage.category("api_db")
class ApiDbCommands:
    """Class for managing the api database."""

    @manage.args("version", metavar="VERSION", nargs="?",
                 help="Database version")
    def sync(self, version=None):
        """Sync the database up to the most recent version."""
        if not _configured("api_database"):
            return 1
        migration.db_sync(migration.API, version)
        return 0

    def version(self):
        """Print the current database version."""
        if not _configured("api_database"):
            return 1
        print(migration.db_version(migration.API))
        return 0
