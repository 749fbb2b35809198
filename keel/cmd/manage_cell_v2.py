"""``keel manage cell_v2 ...``: cell and host mappings, as nova-manage.

Messages and exit codes are Nova's so that deployment tooling written for
nova-manage keeps working. Each database access opens its own short
transaction (API database, or one cell database by URL).
"""
import os
import re
from urllib import parse as urlparse

from oslo_config import cfg
from oslo_db import exception as db_exc
import oslo_messaging as messaging
from oslo_utils import uuidutils
import prettytable
import sqlalchemy as sa
from sqlalchemy import orm

from keel.cmd import manage
from keel.cmd import manage_db
from keel.conf import CONF
from keel import context
from keel.db.api import models as api_models
from keel.db.cell import models as cell_models
from keel.db import session
from keel import exception

CELL0_UUID = manage_db.CELL0_UUID
COMPUTE_BINARY = "nova-compute"


def _ctx():
    return context.get_admin_context()


def mask_passwd_in_url(url):
    """Hide the password of a URL for display (the rest kept verbatim)."""
    if not url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    netloc, sep, path = rest.partition("/")
    return f"{scheme}://{re.sub(':.*@', ':****@', netloc)}{sep}{path}"


def cell0_default_connection(connection):
    """cell0's URL next to the main database: its name + '_cell0'.

    For an SQLite file the suffix goes before the extension
    (nova.sqlite -> nova_cell0.sqlite).
    """
    url = sa.engine.make_url(connection)
    name = url.database
    if url.get_backend_name() == "sqlite":
        if not name or name == ":memory:":
            raise ValueError("an in-memory SQLite [database]/connection has "
                             "no cell0 counterpart; pass "
                             "--database_connection")
        base, ext = os.path.splitext(name)
        name = base + "_cell0" + ext
    else:
        name = name + "_cell0"
    return urlparse.unquote(
        url.set(database=name).render_as_string(hide_password=False))


def _configured_transport_url():
    try:
        return CONF.transport_url
    except cfg.NoSuchOptError:
        # oslo.messaging registers [DEFAULT]/transport_url on first parse.
        messaging.TransportURL.parse(CONF, None)
        return CONF.transport_url


# -- API database access ------------------------------------------------------

def _cells():
    with session.api_reader(_ctx()) as s:
        cells = s.scalars(sa.select(api_models.CellMapping)).all()
        s.expunge_all()
        return cells


def _cell_by_uuid(uuid):
    with session.api_reader(_ctx()) as s:
        cell = s.scalars(sa.select(api_models.CellMapping).filter_by(
            uuid=uuid)).first()
        if cell is None:
            raise exception.CellMappingNotFound(uuid=uuid)
        s.expunge(cell)
        return cell


def _create_cell(**values):
    with session.api_writer(_ctx()) as s:
        s.add(api_models.CellMapping(**values))


def _host_mappings(cell_id=None):
    with session.api_reader(_ctx()) as s:
        query = sa.select(api_models.HostMapping).options(
            orm.joinedload(api_models.HostMapping.cell_mapping))
        if cell_id is not None:
            query = query.filter_by(cell_id=cell_id)
        found = s.scalars(query).unique().all()
        s.expunge_all()
        return found


def _host_is_mapped(host):
    with session.api_reader(_ctx()) as s:
        return s.scalars(sa.select(api_models.HostMapping.id).filter_by(
            host=host)).first() is not None


def _map_host(host, cell):
    try:
        with session.api_writer(_ctx()) as s:
            s.add(api_models.HostMapping(host=host, cell_id=cell.id))
    except db_exc.DBDuplicateEntry:
        raise exception.HostMappingExists(name=host)


def _instance_mapping(instance_uuid):
    with session.api_reader(_ctx()) as s:
        im = s.scalars(sa.select(api_models.InstanceMapping).filter_by(
            instance_uuid=instance_uuid)).first()
        if im is None:
            raise exception.InstanceMappingNotFound(uuid=instance_uuid)
        s.expunge(im)
        return im


def _instance_mapping_count(cell_id):
    im = api_models.InstanceMapping
    with session.api_reader(_ctx()) as s:
        return s.scalar(sa.select(sa.func.count(im.id)).where(
            im.cell_id == cell_id))


def _host_mapping(host):
    with session.api_reader(_ctx()) as s:
        hm = s.scalars(sa.select(api_models.HostMapping).filter_by(
            host=host)).first()
        if hm is None:
            raise exception.HostMappingNotFound(name=host)
        s.expunge(hm)
        return hm


def _destroy_host_mapping(host_mapping_id):
    with session.api_writer(_ctx()) as s:
        s.execute(sa.delete(api_models.HostMapping).where(
            api_models.HostMapping.id == host_mapping_id))


def _destroy_cell(cell_id):
    """Delete a cell mapping with its instance and host mappings."""
    with session.api_writer(_ctx()) as s:
        for model in (api_models.InstanceMapping, api_models.HostMapping):
            s.execute(sa.delete(model).where(model.cell_id == cell_id))
        s.execute(sa.delete(api_models.CellMapping).where(
            api_models.CellMapping.id == cell_id))


# -- cell database access -----------------------------------------------------

def _cell_db(cell, writer=False):
    ctx_mgr = session.cell_context_manager(cell.database_connection)
    return (ctx_mgr.writer if writer else ctx_mgr.reader).using(_ctx())


def _unmapped_compute_nodes(cell):
    cn = cell_models.ComputeNode
    with _cell_db(cell) as s:
        rows = s.execute(sa.select(cn.id, cn.host, cn.uuid).where(
            cn.deleted == 0, sa.or_(cn.mapped < 1, cn.mapped.is_(None)))
        ).all()
        return [tuple(r) for r in rows]


def _set_mapped(cell, node_ids=None, hosts=None, mapped=1):
    cn = cell_models.ComputeNode
    with _cell_db(cell, writer=True) as s:
        stmt = sa.update(cn).where(cn.deleted == 0)
        if node_ids is not None:
            stmt = stmt.where(cn.id.in_(node_ids))
        if hosts is not None:
            stmt = stmt.where(cn.host.in_(hosts))
        s.execute(stmt.values(mapped=mapped))


def _live_instance_count(cell):
    inst = cell_models.Instance
    with _cell_db(cell) as s:
        return s.scalar(sa.select(sa.func.count(inst.id)).where(
            inst.deleted == 0))


def _instance_deleted(cell, instance_uuid):
    """True/False for a deleted/live instance, None when not in the cell."""
    inst = cell_models.Instance
    with _cell_db(cell) as s:
        deleted = s.scalars(sa.select(inst.deleted).where(
            inst.uuid == instance_uuid)).first()
    return None if deleted is None else bool(deleted)


def _instances_on_host(cell, host):
    inst = cell_models.Instance
    with _cell_db(cell) as s:
        return s.scalar(sa.select(sa.func.count(inst.id)).where(
            inst.deleted == 0, inst.host == host))


def _compute_service_hosts(cell):
    svc = cell_models.Service
    with _cell_db(cell) as s:
        return s.scalars(sa.select(svc.host).where(
            svc.deleted == 0, svc.binary == COMPUTE_BINARY)).all()


def discover_hosts(cell_uuid=None, status_fn=None, by_service=False):
    """Map every compute host of the cells that has no host mapping yet.

    Returns the hosts newly mapped. Raises HostMappingExists when another
    run mapped a host at the same time.
    """
    status_fn = status_fn or (lambda msg: None)
    if cell_uuid:
        cells = [_cell_by_uuid(cell_uuid)]
    else:
        cells = _cells()
        status_fn("Found %s cell mappings." % len(cells))
    added = []
    for cell in cells:
        if cell.uuid == CELL0_UUID:
            status_fn("Skipping cell0 since it does not contain hosts.")
            continue
        if cell.name:
            status_fn("Getting computes from cell '%s': %s"
                      % (cell.name, cell.uuid))
        else:
            status_fn("Getting computes from cell: %s" % cell.uuid)
        if by_service:
            new = _discover_by_service(cell, status_fn)
        else:
            new = _discover_by_node(cell, status_fn)
        status_fn("Found %s unmapped computes in cell: %s"
                  % (len(new), cell.uuid))
        added.extend(new)
    return added


def _discover_by_node(cell, status_fn):
    added = []
    for node_id, host, node_uuid in _unmapped_compute_nodes(cell):
        status_fn("Checking host mapping for compute host '%s': %s"
                  % (host, node_uuid))
        if not _host_is_mapped(host) and host not in added:
            status_fn("Creating host mapping for compute host '%s': %s"
                      % (host, node_uuid))
            _map_host(host, cell)
            added.append(host)
        # The node is marked so the next run does not look at it again.
        _set_mapped(cell, node_ids=[node_id])
    return added


def _discover_by_service(cell, status_fn):
    added = []
    for host in _compute_service_hosts(cell):
        if not _host_is_mapped(host) and host not in added:
            status_fn("Creating host mapping for service %s" % host)
            _map_host(host, cell)
            added.append(host)
    return added


@manage.category("cell_v2")
class CellV2Commands:
    """Commands for managing cells v2."""

    def _validate_transport_url(self, transport_url, warn_about_none=True):
        if not transport_url:
            if not _configured_transport_url():
                if warn_about_none:
                    print("Must specify --transport-url if "
                          "[DEFAULT]/transport_url is not set in the "
                          "configuration file.")
                return None
            print("--transport-url not provided in the command line, "
                  "using the value [DEFAULT]/transport_url from the "
                  "configuration file")
            transport_url = CONF.transport_url
        try:
            # A scratch ConfigOpts: parsing registers oslo.messaging's options
            # on the conf it is given, which must not touch the global one.
            messaging.TransportURL.parse(conf=cfg.ConfigOpts(),
                                         url=transport_url)
        except (messaging.InvalidTransportURL, ValueError) as exc:
            print("Invalid transport URL: %s" % exc)
            return None
        return transport_url

    def _validate_database_connection(self, database_connection,
                                      warn_about_none=True):
        if not database_connection:
            if not CONF.database.connection:
                if warn_about_none:
                    print("Must specify --database_connection if "
                          "[database]/connection is not set in the "
                          "configuration file.")
                return None
            print("--database_connection not provided in the command line, "
                  "using the value [database]/connection from the "
                  "configuration file")
            return CONF.database.connection
        return database_connection

    def _non_unique_transport_url_database_connection_checker(
            self, cell_mapping, transport_url, database_connection):
        for cell in _cells():
            if cell_mapping and cell.uuid == cell_mapping.uuid:
                continue  # an idempotent update of the same cell
            if (cell.database_connection == database_connection or
                    cell.transport_url == transport_url):
                print("The specified transport_url and/or "
                      "database_connection combination already exists "
                      "for another cell with uuid %s." % cell.uuid)
                return True
        return False

    @manage.args("--database_connection", metavar="<database_connection>",
                 help="The database connection url for cell0. This is "
                      "optional. If not provided, a standard database "
                      "connection will be used based on the main database "
                      "connection from the configuration.")
    def map_cell0(self, database_connection=None):
        """Create a cell mapping for cell0.

        cell0 holds instances that failed before being scheduled to a
        cell. Returns 0 if cell0 was created or is already set up.
        """
        if not database_connection:
            if not CONF.database.connection:
                print("Must specify --database_connection if "
                      "[database]/connection is not set in the "
                      "configuration file.")
                return 1
            database_connection = cell0_default_connection(
                CONF.database.connection)
        try:
            # RPC is never used with cell0: its transport is none:///.
            _create_cell(uuid=CELL0_UUID, name="cell0",
                         transport_url="none:///",
                         database_connection=database_connection)
        except db_exc.DBDuplicateEntry:
            print("Cell0 is already setup")
        return 0

    @manage.action_description(
        "Add a new cell to nova API database. DB and MQ urls can be "
        "provided directly or can be taken from config. The result is "
        "cell uuid.")
    @manage.args("--name", metavar="<cell_name>", help="The name of the cell")
    @manage.args("--database_connection", metavar="<database_connection>",
                 dest="database_connection",
                 help="The database url for the cell database")
    @manage.args("--transport-url", metavar="<transport_url>",
                 dest="transport_url",
                 help="The transport url for the cell message queue")
    @manage.args("--verbose", action="store_true",
                 help="Output the uuid of the created cell")
    @manage.args("--disabled", action="store_true",
                 help="To create a pre-disabled cell.")
    def create_cell(self, name=None, database_connection=None,
                    transport_url=None, verbose=False, disabled=False):
        transport_url = self._validate_transport_url(transport_url)
        if not transport_url:
            return 1
        database_connection = self._validate_database_connection(
            database_connection)
        if not database_connection:
            return 1
        if self._non_unique_transport_url_database_connection_checker(
                None, transport_url, database_connection):
            return 2
        cell_uuid = uuidutils.generate_uuid()
        _create_cell(uuid=cell_uuid, name=name, transport_url=transport_url,
                     database_connection=database_connection,
                     disabled=disabled)
        if verbose:
            print(cell_uuid)
        return 0

    @manage.args("--verbose", action="store_true",
                 help="Show sensitive details, such as passwords")
    def list_cells(self, verbose=False):
        """Lists the v2 cells in the deployment.

        By default the cell name, uuid, disabled state, masked transport
        URL and database connection details are shown. Use the --verbose
        option to see transport URL and database connection with their
        sensitive details.
        """
        table = prettytable.PrettyTable(
            ["Name", "UUID", "Transport URL", "Database Connection",
             "Disabled"])
        for cell in sorted(_cells(), key=lambda c: c.name or ""):
            fields = [cell.name or "", cell.uuid]
            if verbose:
                fields += [cell.transport_url, cell.database_connection]
            else:
                fields += [mask_passwd_in_url(cell.transport_url),
                           mask_passwd_in_url(cell.database_connection)]
            fields.append(bool(cell.disabled))
            table.add_row(fields)
        print(table)
        return 0

    @manage.args("--force", action="store_true", default=False,
                 help="Delete hosts and instance_mappings that belong to "
                      "the cell as well.")
    @manage.args("--cell_uuid", metavar="<cell_uuid>", dest="cell_uuid",
                 required=True, help="The uuid of the cell to delete.")
    def delete_cell(self, cell_uuid, force=False):
        """Delete an empty cell by the given uuid.

        Exit codes: 1 cell not found, 2 it has hosts (without --force),
        3 it has instances, 4 instance mappings of deleted instances remain
        (without --force), 0 deleted.
        """
        try:
            cell = _cell_by_uuid(cell_uuid)
        except exception.CellMappingNotFound:
            print("Cell with uuid %s was not found." % cell_uuid)
            return 1
        has_hosts = bool(_host_mappings(cell.id))
        if has_hosts and not force:
            print("There are existing hosts mapped to cell with uuid %s."
                  % cell_uuid)
            return 2
        if _instance_mapping_count(cell.id):
            if _live_instance_count(cell):
                print("There are existing instances mapped to cell with "
                      "uuid %s." % cell_uuid)
                return 3
            if not force:
                print("There are instance mappings to cell with uuid %s, "
                      "but all instances have been deleted in the cell."
                      % cell_uuid)
                print("So execute 'nova-manage db archive_deleted_rows' to "
                      "delete the instance mappings.")
                return 4
        if has_hosts:
            # Unmapped nodes are found again by a later discover_hosts.
            _set_mapped(cell, mapped=0)
        _destroy_cell(cell.id)
        return 0

    @manage.args("--cell_uuid", metavar="<cell_uuid>", dest="cell_uuid",
                 required=True, help="The uuid of the cell to update.")
    @manage.args("--name", metavar="<cell_name>", dest="name",
                 help="Set the cell name.")
    @manage.args("--transport-url", metavar="<transport_url>",
                 dest="transport_url",
                 help="Set the cell transport_url. NOTE that running nodes "
                      "will not see the change until restart!")
    @manage.args("--database_connection", metavar="<database_connection>",
                 dest="db_connection",
                 help="Set the cell database_connection. NOTE that running "
                      "nodes will not see the change until restart!")
    @manage.args("--disable", action="store_true", dest="disable",
                 help="Disables the cell. Note that the scheduling will be "
                      "blocked to this cell until its enabled and followed "
                      "by a SIGHUP of the scheduler service.")
    @manage.args("--enable", action="store_true", dest="enable",
                 help="Enables the cell. Note that this makes a disabled "
                      "cell available for scheduling after a SIGHUP of the "
                      "scheduler service")
    def update_cell(self, cell_uuid, name=None, transport_url=None,
                    db_connection=None, disable=False, enable=False):
        """Updates the properties of a cell by the given uuid.

        Exit codes: 1 not found, 2 could not save, 3 URL used by another
        cell, 4 both --enable and --disable, 5 cell0 cannot be disabled.
        """
        try:
            cell = _cell_by_uuid(cell_uuid)
        except exception.CellMappingNotFound:
            print("Cell with uuid %s was not found." % cell_uuid)
            return 1
        values = {}
        if name:
            values["name"] = name
        # Empty URLs leave the existing values in place.
        transport_url = self._validate_transport_url(
            transport_url, warn_about_none=False)
        db_connection = self._validate_database_connection(
            db_connection, warn_about_none=False)
        if self._non_unique_transport_url_database_connection_checker(
                cell, transport_url, db_connection):
            return 3
        if transport_url:
            values["transport_url"] = transport_url
        if db_connection:
            values["database_connection"] = db_connection
        if disable and enable:
            print("Cell cannot be disabled and enabled at the same time.")
            return 4
        if disable or enable:
            if cell.uuid == CELL0_UUID:
                print("Cell0 cannot be disabled.")
                return 5
            if disable and not cell.disabled:
                values["disabled"] = True
            elif enable and cell.disabled:
                values["disabled"] = False
            elif disable:
                print("Cell %s is already disabled" % cell_uuid)
            else:
                print("Cell %s is already enabled" % cell_uuid)
        try:
            with session.api_writer(_ctx()) as s:
                s.execute(sa.update(api_models.CellMapping).where(
                    api_models.CellMapping.id == cell.id).values(**values)
                    if values else sa.select(1))
        except Exception as exc:
            print("Unable to update CellMapping: %s" % exc)
            return 2
        return 0

    @manage.args("--cell_uuid", metavar="<cell_uuid>", dest="cell_uuid",
                 help="If provided only this cell will be searched for new "
                      "hosts to map.")
    @manage.args("--verbose", action="store_true",
                 help="Provide detailed output when discovering hosts.")
    @manage.args("--strict", action="store_true",
                 help="Considered successful (exit code 0) only when an "
                      "unmapped host is discovered. Any other outcome will "
                      "be considered a failure (non-zero exit code).")
    @manage.args("--by-service", action="store_true", default=False,
                 dest="by_service",
                 help="Discover hosts by service instead of compute node")
    def discover_hosts(self, cell_uuid=None, verbose=False, strict=False,
                       by_service=False):
        """Searches cells, or a single cell, and maps found hosts.

        Run it once after new compute hosts are deployed, not in parallel:
        parallel runs collide mapping the same hosts.
        """
        status_fn = print if verbose else None
        try:
            hosts = discover_hosts(cell_uuid, status_fn, by_service)
        except exception.HostMappingExists as exc:
            print("ERROR: Duplicate host mapping was encountered. This "
                  "command should be run once after all compute hosts have "
                  "been deployed and should not be run in parallel. When "
                  "run in parallel, the commands will collide with each "
                  "other trying to map the same hosts in the database at "
                  "the same time. Error: %s" % exc)
            return 2
        if strict:
            return int(not hosts)
        return 0

    @manage.args("--cell_uuid", metavar="<cell_uuid>", dest="cell_uuid",
                 help="The uuid of the cell.")
    def list_hosts(self, cell_uuid=None):
        """Lists the hosts in one or all v2 cells."""
        cell_id = None
        if cell_uuid:
            try:
                cell_id = _cell_by_uuid(cell_uuid).id
            except exception.CellMappingNotFound:
                print("Cell with uuid %s was not found." % cell_uuid)
                return 1
        table = prettytable.PrettyTable(["Cell Name", "Cell UUID",
                                         "Hostname"])
        for hm in sorted(_host_mappings(cell_id), key=lambda h: h.host):
            table.add_row([hm.cell_mapping.name, hm.cell_mapping.uuid,
                           hm.host])
        print(table)
        return 0

    @manage.args("--cell_uuid", metavar="<cell_uuid>", dest="cell_uuid",
                 required=True, help="The uuid of the cell.")
    @manage.args("--host", metavar="<host>", dest="host", required=True,
                 help="The host to delete.")
    def delete_host(self, cell_uuid, host):
        """Delete a host in a cell (host mappings) by the given host name.

        Exit codes: 1 cell not found, 2 host not found, 3 host not in that
        cell, 4 host has instances, 0 deleted.
        """
        try:
            cell = _cell_by_uuid(cell_uuid)
        except exception.CellMappingNotFound:
            print("Cell with uuid %s was not found." % cell_uuid)
            return 1
        try:
            host_mapping = _host_mapping(host)
        except exception.HostMappingNotFound:
            print("The host %s was not found." % host)
            return 2
        if host_mapping.cell_id != cell.id:
            print("The host %s was not found in the cell %s."
                  % (host, cell_uuid))
            return 3
        if _instances_on_host(cell, host):
            print("There are instances on the host %s." % host)
            return 4
        # Unmapped nodes are found again by a later discover_hosts.
        _set_mapped(cell, hosts=[host], mapped=0)
        _destroy_host_mapping(host_mapping.id)
        return 0

    @manage.args("--uuid", metavar="<instance_uuid>", dest="uuid",
                 required=True, help="The instance UUID to verify")
    @manage.args("--quiet", action="store_true", dest="quiet",
                 help="Do not print anything")
    def verify_instance(self, uuid, quiet=False):
        """Verify instance mapping to a cell.

        Exit codes: 0 mapped to a cell, 1 no mapping, 2 mapping without a
        cell (still building), 3 deleted instance still mapped, 4 archived
        instance still mapped.
        """
        def say(text):
            if not quiet:
                print(text)

        try:
            mapping = _instance_mapping(uuid)
        except exception.InstanceMappingNotFound:
            say("Instance %s is not mapped to a cell (upgrade is incomplete) "
                "or instance does not exist" % uuid)
            return 1
        if mapping.cell_mapping is None:
            say("Instance %s is not mapped to a cell" % uuid)
            return 2
        cell = mapping.cell_mapping
        deleted = _instance_deleted(cell, uuid)
        if deleted is None:
            say("The instance with uuid %s has been archived." % uuid)
            say("However its instance_mapping remains.")
            return 4
        if deleted:
            say("The instance with uuid %s has been deleted." % uuid)
            say("Execute `nova-manage db archive_deleted_rows` command to "
                "archive this deleted instance and remove its "
                "instance_mapping.")
            return 3
        say("Instance %s is in cell: %s (%s)" % (uuid, cell.name, cell.uuid))
        return 0
