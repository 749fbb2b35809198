"""Server groups."""
from keel.policies import base

ROOT = "os_compute_api:os-server-groups:%s"

rules = [
    base.rule(ROOT % "create", base.PROJECT_MEMBER, "Create a new server "
              "group", [("POST", "/os-server-groups")]),
    base.rule(ROOT % "delete", base.PROJECT_MEMBER_OR_ADMIN, "Delete a "
              "server group",
              [("DELETE", "/os-server-groups/{server_group_id}")]),
    base.rule(ROOT % "index", base.PROJECT_READER_OR_ADMIN, "List all "
              "server groups", [("GET", "/os-server-groups")]),
    base.rule(ROOT % "index:all_projects", base.ADMIN, "List all server "
              "groups for all projects", [("GET", "/os-server-groups")]),
    base.rule(ROOT % "show", base.PROJECT_READER_OR_ADMIN, "Show details "
              "of a server group",
              [("GET", "/os-server-groups/{server_group_id}")]),
]


def list_rules():
    return rules
