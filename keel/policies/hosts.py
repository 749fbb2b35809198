"""Cloud-wide host views: availability zones, services, hypervisors,
aggregates, migrations, usage and external events."""
from keel.policies import base

AZ = "os_compute_api:os-availability-zone:%s"
SERVICES = "os_compute_api:os-services:%s"
HYPERVISORS = "os_compute_api:os-hypervisors:%s"
AGGREGATES = "os_compute_api:os-aggregates:%s"
MIGRATIONS = "os_compute_api:os-migrations:%s"
USAGE = "os_compute_api:os-simple-tenant-usage:%s"
EVENTS = "os_compute_api:os-server-external-events:%s"
_HYP = "/os-hypervisors/{hypervisor_id}"
_AGG = "/os-aggregates/{aggregate_id}"

rules = [
    base.rule(AZ % "list", base.RULE_ANY, "List availability zone "
              "information without host information",
              [("GET", "/os-availability-zone")]),
    base.rule(AZ % "detail", base.ADMIN, "List detailed availability zone "
              "information with host information",
              [("GET", "/os-availability-zone/detail")]),
    base.rule(SERVICES % "list", base.ADMIN, "List all running Compute "
              "Services in a region", [("GET", "/os-services")]),
    base.rule(SERVICES % "update", base.ADMIN, "Update a Compute Service",
              [("PUT", "/os-services/{service_id}")]),
    base.rule(SERVICES % "delete", base.ADMIN, "Delete a Compute Service",
              [("DELETE", "/os-services/{service_id}")]),
    base.rule(HYPERVISORS % "list", base.ADMIN, "List all hypervisors",
              [("GET", "/os-hypervisors")]),
    base.rule(HYPERVISORS % "list-detail", base.ADMIN,
              "List all hypervisors with details",
              [("GET", "/os-hypervisors/detail")]),
    base.rule(HYPERVISORS % "statistics", base.ADMIN,
              "Show summary statistics for all hypervisors",
              [("GET", "/os-hypervisors/statistics")]),
    base.rule(HYPERVISORS % "show", base.ADMIN,
              "Show details for a hypervisor", [("GET", _HYP)]),
    base.rule(HYPERVISORS % "uptime", base.ADMIN,
              "Show the uptime of a hypervisor", [("GET", _HYP + "/uptime")]),
    base.rule(HYPERVISORS % "search", base.ADMIN,
              "Search hypervisor by hypervisor_hostname pattern",
              [("GET", "/os-hypervisors/{hypervisor_hostname_pattern}/"
                       "search")]),
    base.rule(HYPERVISORS % "servers", base.ADMIN,
              "List all servers on hypervisors matching a pattern",
              [("GET", "/os-hypervisors/{hypervisor_hostname_pattern}/"
                       "servers")]),
    base.rule(AGGREGATES % "set_metadata", base.ADMIN,
              "Create or replace metadata for an aggregate",
              [("POST", _AGG + "/action (set_metadata)")]),
    base.rule(AGGREGATES % "add_host", base.ADMIN, "Add a host to an "
              "aggregate", [("POST", _AGG + "/action (add_host)")]),
    base.rule(AGGREGATES % "create", base.ADMIN, "Create an aggregate",
              [("POST", "/os-aggregates")]),
    base.rule(AGGREGATES % "remove_host", base.ADMIN, "Remove a host from "
              "an aggregate", [("POST", _AGG + "/action (remove_host)")]),
    base.rule(AGGREGATES % "update", base.ADMIN, "Update name and/or "
              "availability zone of an aggregate", [("PUT", _AGG)]),
    base.rule(AGGREGATES % "index", base.ADMIN, "List all aggregates",
              [("GET", "/os-aggregates")]),
    base.rule(AGGREGATES % "delete", base.ADMIN, "Delete an aggregate",
              [("DELETE", _AGG)]),
    base.rule(AGGREGATES % "show", base.ADMIN, "Show details for an "
              "aggregate", [("GET", _AGG)]),
    base.rule("compute:aggregates:images", base.ADMIN, "Request image "
              "caching for an aggregate", [("POST", _AGG + "/images")]),
    base.rule(MIGRATIONS % "index", base.ADMIN, "List migrations",
              [("GET", "/os-migrations")]),
    base.rule(USAGE % "show", base.PROJECT_READER_OR_ADMIN, "Show usage "
              "statistics for a specific tenant",
              [("GET", "/os-simple-tenant-usage/{tenant_id}")]),
    base.rule(USAGE % "list", base.ADMIN, "List per tenant usage "
              "statistics for all tenants",
              [("GET", "/os-simple-tenant-usage")]),
    base.rule(EVENTS % "create", base.SERVICE_ROLE, "Create one or more "
              "external events", [("POST", "/os-server-external-events")]),
]


def list_rules():
    return rules
