"""os-migrate-server:migrate_live and servers:migrations rules (Nova's
names and their 32.0.0 defaults: project managers may live migrate and
handle their servers' live migrations, naming a host or seeing hosts stays
with administrators)."""
from keel.policies import base

MIGRATE_LIVE = "os_compute_api:os-migrate-server:migrate_live"
MIGRATE_LIVE_HOST = MIGRATE_LIVE + ":host"
MIGRATIONS = "os_compute_api:servers:migrations:%s"
_ACTION = "/servers/{server_id}/action (%s)"
_PATH = "/servers/{server_id}/migrations"
A, PM = base.ADMIN, base.PROJECT_MANAGER_OR_ADMIN

rules = [
    base.rule(MIGRATE_LIVE, PM, "Live migrate a server to a new host "
              "without a reboot without specifying a host.",
              [("POST", _ACTION % "os-migrateLive")]),
    base.rule(MIGRATE_LIVE_HOST, A, "Live migrate a server to a specified "
              "host without a reboot.",
              [("POST", _ACTION % "os-migrateLive")]),
    base.rule(MIGRATIONS % "index", PM, "Lists in-progress live migrations "
              "for a given server without host info.", [("GET", _PATH)]),
    base.rule(MIGRATIONS % "index:host", A, "Lists in-progress live "
              "migrations for a given server with host info.",
              [("GET", _PATH)]),
    base.rule(MIGRATIONS % "show", A, "Show details for an in-progress live "
              "migration for a given server",
              [("GET", _PATH + "/{migration_id}")]),
    base.rule(MIGRATIONS % "force_complete", PM, "Force an in-progress live "
              "migration for a given server to complete",
              [("POST", _PATH + "/{migration_id}/action (force_complete)")]),
    base.rule(MIGRATIONS % "delete", PM, "Delete(Abort) an in-progress live "
              "migration", [("DELETE", _PATH + "/{migration_id}")]),
]

def list_rules():
    return rules
