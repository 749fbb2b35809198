"""Flavors: manage (create/update/delete), access lists and extra specs."""
from keel.policies import base

MANAGE = "os_compute_api:os-flavor-manage:%s"
ACCESS = "os_compute_api:os-flavor-access"
ACCESS_ROOT = "os_compute_api:os-flavor-access:%s"
EXTRA_SPECS = "os_compute_api:os-flavor-extra-specs:%s"

_FLAVOR = "/flavors/{flavor_id}"
_SPECS = "/flavors/{flavor_id}/os-extra_specs"
_SPEC = _SPECS + "/{flavor_extra_spec_key}"

rules = [
    base.rule(MANAGE % "create", base.ADMIN, "Create a flavor",
              [("POST", "/flavors")]),
    base.rule(MANAGE % "update", base.ADMIN, "Update a flavor",
              [("PUT", _FLAVOR)]),
    base.rule(MANAGE % "delete", base.ADMIN, "Delete a flavor",
              [("DELETE", _FLAVOR)]),
    base.rule(ACCESS_ROOT % "add_tenant_access", base.ADMIN,
              "Add flavor access to a project",
              [("POST", _FLAVOR + "/action (addTenantAccess)")]),
    base.rule(ACCESS_ROOT % "remove_tenant_access", base.ADMIN,
              "Remove flavor access from a project",
              [("POST", _FLAVOR + "/action (removeTenantAccess)")]),
    base.rule(ACCESS, base.ADMIN,
              "List the projects with access to a private flavor",
              [("GET", _FLAVOR + "/os-flavor-access")]),
    base.rule(EXTRA_SPECS % "index", base.PROJECT_READER_OR_ADMIN,
              "List a flavor's extra specs (also shown in flavor "
              "responses from 2.61)",
              [("GET", _SPECS), ("POST", "/flavors"),
               ("GET", "/flavors/detail"), ("GET", _FLAVOR),
               ("PUT", _FLAVOR)]),
    base.rule(EXTRA_SPECS % "show", base.PROJECT_READER_OR_ADMIN,
              "Show one extra spec of a flavor", [("GET", _SPEC)]),
    base.rule(EXTRA_SPECS % "create", base.ADMIN,
              "Create extra specs for a flavor", [("POST", _SPECS)]),
    base.rule(EXTRA_SPECS % "update", base.ADMIN,
              "Update an extra spec of a flavor", [("PUT", _SPEC)]),
    base.rule(EXTRA_SPECS % "delete", base.ADMIN,
              "Delete an extra spec of a flavor", [("DELETE", _SPEC)]),
]


def list_rules():
    return rules
