"""Backup and cold migration rules (Nova's os-create-backup and
os-migrate-server; createImage, resize, confirm and revert are servers:*
rules in keel.policies.servers)."""
from keel.policies import base

CREATE_BACKUP = "os_compute_api:os-create-backup"
MIGRATE = "os_compute_api:os-migrate-server:migrate"
MIGRATE_HOST = "os_compute_api:os-migrate-server:migrate:host"

_ACTION = "/servers/{server_id}/action (%s)"
M, A = base.PROJECT_MEMBER_OR_ADMIN, base.ADMIN
# Nova 32.0.0: project managers may cold migrate, only admins name a host.
MGR = base.PROJECT_MANAGER_OR_ADMIN

rules = [
    base.rule(CREATE_BACKUP, M, "Create a back up of a server",
              [("POST", _ACTION % "createBackup")]),
    base.rule(MIGRATE, MGR, "Cold migrate a server to a host",
              [("POST", _ACTION % "migrate")]),
    base.rule(MIGRATE_HOST, A, "Cold migrate a server to a specified host",
              [("POST", _ACTION % "migrate")]),
]


def list_rules():
    return rules
