"""``keel manage db ...`` and ``keel manage api_db ...`` (as nova-manage)."""
import sys

from dateutil import parser as dateutil_parser
import prettytable
import sqlalchemy as sa

from keel.cmd import manage
from keel.conf import CONF
from keel import context
from keel.db.api import models
from keel.db.cell import archive
from keel.db import migration
from keel.db import session

CELL0_UUID = "00000000-0000-0000-0000-000000000000"
MAX_INT = 0x7FFFFFFF  # the largest INT column value, as Nova's db.MAX_INT

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


def _cell_list():
    with session.api_reader(context.get_admin_context()) as s:
        cells = s.scalars(sa.select(models.CellMapping)).all()
        s.expunge_all()
        return cells


def _identity(cell):
    return "%s(%s)" % (cell.uuid, cell.name) if cell.name else cell.uuid


def _parse_before(before):
    return dateutil_parser.parse(before, fuzzy=True)


def _forget_instances(uuids):
    """Drop the API records of archived instances; counts per table."""
    counts = {}
    with session.api_writer(context.get_admin_context()) as s:
        for model, name in ((models.InstanceMapping, "instance_mappings"),
                            (models.RequestSpec, "request_specs"),
                            (models.InstanceGroupMember,
                             "instance_group_member")):
            counts["API_DB." + name] = s.execute(sa.delete(model).where(
                model.instance_uuid.in_(uuids))).rowcount
    return counts


def _print_dict(dct, dict_property, dict_value, sort_key=None):
    table = prettytable.PrettyTable([dict_property, dict_value])
    table.align = "l"
    for key, value in sorted(dct.items(), key=sort_key):
        table.add_row([key, value])
    print(table)


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

    @manage.args("--max_rows", type=int, metavar="<number>",
                 dest="max_rows",
                 help="Maximum number of deleted rows to archive. Defaults "
                      "to 1000. Note that this number does not include the "
                      "corresponding rows, if any, that are removed from "
                      "the API database for deleted instances.")
    @manage.args("--before", metavar="<date>",
                 help="Archive rows that have been deleted before this "
                      "date. Accepts date strings in the default format "
                      "output by the ``date`` command, as well as "
                      "``YYYY-MM-DD [HH:mm:ss]``.")
    @manage.args("--verbose", action="store_true", dest="verbose",
                 default=False,
                 help="Print how many rows were archived per table.")
    @manage.args("--until-complete", action="store_true",
                 dest="until_complete", default=False,
                 help="Run continuously until all deleted rows are "
                      "archived. Use max_rows as a batch size for each "
                      "iteration.")
    @manage.args("--purge", action="store_true", dest="purge",
                 default=False,
                 help="Purge all data from shadow tables after archive "
                      "completes")
    @manage.args("--all-cells", action="store_true", dest="all_cells",
                 default=False, help="Run command across all cells.")
    @manage.args("--task-log", action="store_true", dest="task_log",
                 default=False,
                 help="Also archive ``task_log`` table records.")
    def archive_deleted_rows(self, max_rows=1000, verbose=False,
                             until_complete=False, purge=False, before=None,
                             all_cells=False, task_log=False):
        """Move deleted rows from production tables to shadow tables.

        Returns 0 if nothing was archived, 1 if some number of rows were
        archived, 2 if max_rows is invalid, 3 if no connection could be
        established to the API DB, 4 if before date is invalid. If
        automating, run it while the result is 1, stopping at 0.
        """
        max_rows = int(max_rows)
        if max_rows < 0:
            print("Must supply a positive value for max_rows")
            return 2
        if max_rows > MAX_INT:
            print("max rows must be <= %d" % MAX_INT)
            return 2
        try:
            # The API DB is needed to drop deleted instances' records.
            cells = _cell_list()
        except Exception:
            print("Failed to connect to API DB so aborting this archival "
                  "attempt. Please check your config file to make sure that "
                  "[api_database]/connection is set and run this command "
                  "again.")
            return 3
        before_date = None
        if before:
            try:
                before_date = _parse_before(before)
            except ValueError as exc:
                print("Invalid value for --before: %s" % exc)
                return 4

        if all_cells:
            targets = [(c.name, c.database_connection) for c in cells]
        else:
            targets = [(None, CONF.database.connection)]
        archived = {}
        if until_complete and verbose:
            sys.stdout.write("Archiving..")
        total = 0
        interrupted = False
        for cell_name, url in targets:
            if not until_complete and total >= max_rows:
                break
            batch = max_rows if until_complete else max_rows - total
            try:
                total += self._archive_cell(
                    archived, session.cell_engine(url), batch, before_date,
                    task_log, until_complete, verbose, cell_name)
            except KeyboardInterrupt:
                interrupted = True
                break
        if until_complete and verbose:
            print("." + ("stopped" if interrupted else "complete"))
        if verbose:
            if archived:
                sort_key = (lambda item: tuple(item[0].split(".", 1))) \
                    if all_cells else None
                _print_dict(archived, "Table", "Number of Rows Archived",
                            sort_key=sort_key)
            else:
                print("Nothing was archived.")
        if archived and purge:
            if verbose:
                print("Rows were archived, running purge...")
            self.purge(purge_all=True, verbose=verbose, all_cells=all_cells)
        return int(bool(archived))

    @staticmethod
    def _archive_cell(archived, engine, max_rows, before, task_log,
                      until_complete, verbose, cell_name):
        total = 0
        while True:
            run, uuids, rows = archive.archive_deleted_rows(
                engine, max_rows, before=before, task_log=task_log)
            for table, count in run.items():
                key = f"{cell_name}.{table}" if cell_name else table
                archived[key] = archived.get(key, 0) + count
            if uuids:
                for key, count in _forget_instances(uuids).items():
                    archived[key] = archived.get(key, 0) + count
            total += rows
            if not until_complete or not run:
                return total
            if verbose:
                sys.stdout.write(".")

    @manage.args("--before", metavar="<before>", dest="before",
                 help="If specified, purge rows from shadow tables that are "
                      "older than this. Accepts date strings in the default "
                      "format output by the ``date`` command, as well as "
                      "``YYYY-MM-DD [HH:mm:ss]``.")
    @manage.args("--all", dest="purge_all", action="store_true",
                 help="Purge all rows in the shadow tables")
    @manage.args("--verbose", dest="verbose", action="store_true",
                 default=False, help="Print information about purged records")
    @manage.args("--all-cells", dest="all_cells", action="store_true",
                 default=False, help="Run against all cell databases")
    def purge(self, before=None, purge_all=False, verbose=False,
              all_cells=False):
        """Delete rows from the shadow tables.

        Returns 0 if rows were deleted, 1 without --before or --all, 2 for
        an invalid --before, 3 if nothing was deleted, 4 if the API DB
        cannot list the cells.
        """
        if before is None and not purge_all:
            print("Either --before or --all is required")
            return 1
        before_date = None
        if before:
            try:
                before_date = _parse_before(before)
            except ValueError as exc:
                print("Invalid value for --before: %s" % exc)
                return 2
        if all_cells:
            try:
                targets = [(_identity(c), c.database_connection)
                           for c in _cell_list()]
            except Exception:
                print("Unable to get cell list from API DB. Is it "
                      "configured?")
                return 4
            targets = [("Cell %s" % ident, url) for ident, url in targets]
        else:
            targets = [("DB", CONF.database.connection)]
        deleted = 0
        for identity, url in targets:
            def status(msg, identity=identity):
                if verbose:
                    print("%s: %s" % (identity, msg))
            deleted += archive.purge_shadow_tables(
                session.cell_engine(url), before_date, status_fn=status)
        return 0 if deleted else 3

    @manage.args("--max-count", metavar="<number>", dest="max_count",
                 help="Maximum number of objects to consider")
    def online_data_migrations(self, max_count=None):
        """Run the online data migrations (keel has none: its schema
        starts at Nova 34, whose data needs no rewriting). Kept so that
        upgrade tooling calling it works; exits 0, or 127 for a bad
        --max-count, as Nova."""
        if max_count is not None:
            try:
                max_count = int(max_count)
            except ValueError:
                max_count = -1
            if max_count < 1:
                print("Must supply a positive value for max_number")
                return 127
        else:
            print("Running batches of 50 until complete")
        print(prettytable.PrettyTable(["Migration", "Total Needed",
                                       "Completed"]))
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
