"""os-migrate-server:migrate_live and servers:migrations rules (Nova's
names and defaults: administrators only)."""
from keel.policies import base

MIGRATE_LIVE = "os_compute_api:os-migrate-server:migrate_live"
MIGRATIONS = "os_compute_api:servers:migrations:%s"
_ACTION = "/servers/{server_id}/action (%s)"
_PATH = "/servers/{server_id}/migrations"
A = base.ADMIN

rules = [
    base.rule(MIGRATE_LIVE, A, "Live migrate a server to a new host "
              "without a reboot", [("POST", _ACTION % "os-migrateLive")]),
    base.rule(MIGRATIONS % "index", A, "Lists in-progress live migrations "
              "for a given server", [("GET", _PATH)]),
    base.rule(MIGRATIONS % "show", A, "Show details for an in-progress live "
              "migration for a given server",
              [("GET", _PATH + "/{migration_id}")]),
    base.rule(MIGRATIONS % "force_complete", A, "Force an in-progress live "
              "migration for a given server to complete",
              [("POST", _PATH + "/{migration_id}/action (force_complete)")]),
    base.rule(MIGRATIONS % "delete", A, "Delete(Abort) an in-progress live "
              "migration", [("DELETE", _PATH + "/{migration_id}")]),
]


def list_rules():
    return rules
