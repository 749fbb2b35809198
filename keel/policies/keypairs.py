"""Keypairs belong to users: the owner or an admin."""
from keel.policies import base

ROOT = "os_compute_api:os-keypairs:%s"
OWNER_OR_ADMIN = "(" + base.ADMIN + ") or user_id:%(user_id)s"

rules = [
    base.rule(ROOT % "index", OWNER_OR_ADMIN, "List all keypairs",
              [("GET", "/os-keypairs")]),
    base.rule(ROOT % "create", OWNER_OR_ADMIN, "Create a keypair",
              [("POST", "/os-keypairs")]),
    base.rule(ROOT % "delete", OWNER_OR_ADMIN, "Delete a keypair",
              [("DELETE", "/os-keypairs/{keypair_name}")]),
    base.rule(ROOT % "show", OWNER_OR_ADMIN, "Show a keypair",
              [("GET", "/os-keypairs/{keypair_name}")]),
]


def list_rules():
    return rules
