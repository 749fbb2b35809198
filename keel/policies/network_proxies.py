"""Nova's proxy APIs (up to 2.35) in front of Neutron and Cinder:
os-networks, os-tenant-networks, os-security-groups (+ rules, a server's
groups and the add/remove actions), os-floating-ips, os-floating-ip-pools,
os-volumes and os-snapshots. Rule names and defaults as Nova's."""
from keel.policies import base

NETWORKS = "os_compute_api:os-networks:%s"
TENANT_NETWORKS = "os_compute_api:os-tenant-networks:%s"
SECURITY_GROUPS = "os_compute_api:os-security-groups:%s"
FLOATING_IPS = "os_compute_api:os-floating-ips:%s"
FLOATING_IP_POOLS = "os_compute_api:os-floating-ip-pools:list"
VOLUMES = "os_compute_api:os-volumes:%s"

R, M = base.PROJECT_READER_OR_ADMIN, base.PROJECT_MEMBER_OR_ADMIN
_ACTION = "/servers/{server_id}/action (%s)"

rules = [
    base.rule(NETWORKS % "list", R, "List networks for the project",
              [("GET", "/os-networks")]),
    base.rule(NETWORKS % "view", R, "Show network details",
              [("GET", "/os-networks/{network_id}")]),
    base.rule(TENANT_NETWORKS % "list", R, "List project networks",
              [("GET", "/os-tenant-networks")]),
    base.rule(TENANT_NETWORKS % "show", R, "Show project network details",
              [("GET", "/os-tenant-networks/{network_id}")]),

    base.rule(SECURITY_GROUPS % "get", R, "List security groups",
              [("GET", "/os-security-groups")]),
    base.rule(SECURITY_GROUPS % "show", R, "Show security group",
              [("GET", "/os-security-groups/{security_group_id}")]),
    base.rule(SECURITY_GROUPS % "create", M, "Create security group",
              [("POST", "/os-security-groups")]),
    base.rule(SECURITY_GROUPS % "update", M, "Update security group",
              [("PUT", "/os-security-groups/{security_group_id}")]),
    base.rule(SECURITY_GROUPS % "delete", M, "Delete security group",
              [("DELETE", "/os-security-groups/{security_group_id}")]),
    base.rule(SECURITY_GROUPS % "rule:create", M,
              "Create security group Rule",
              [("POST", "/os-security-group-rules")]),
    base.rule(SECURITY_GROUPS % "rule:delete", M,
              "Delete security group Rule",
              [("DELETE", "/os-security-group-rules/{security_group_id}")]),
    base.rule(SECURITY_GROUPS % "list", R,
              "List security groups of server.",
              [("GET", "/servers/{server_id}/os-security-groups")]),
    base.rule(SECURITY_GROUPS % "add", M, "Add security groups to server",
              [("POST", _ACTION % "addSecurityGroup")]),
    base.rule(SECURITY_GROUPS % "remove", M,
              "Remove security groups from server",
              [("POST", _ACTION % "removeSecurityGroup")]),

    base.rule(FLOATING_IP_POOLS, R, "List floating IP pools",
              [("GET", "/os-floating-ip-pools")]),
    base.rule(FLOATING_IPS % "add", M, "Associate floating IPs to server",
              [("POST", _ACTION % "addFloatingIp")]),
    base.rule(FLOATING_IPS % "remove", M,
              "Disassociate floating IPs to server",
              [("POST", _ACTION % "removeFloatingIp")]),
    base.rule(FLOATING_IPS % "list", R, "List floating IPs",
              [("GET", "/os-floating-ips")]),
    base.rule(FLOATING_IPS % "create", M, "Create floating IPs",
              [("POST", "/os-floating-ips")]),
    base.rule(FLOATING_IPS % "show", R, "Show floating IPs",
              [("GET", "/os-floating-ips/{floating_ip_id}")]),
    base.rule(FLOATING_IPS % "delete", M, "Delete floating IPs",
              [("DELETE", "/os-floating-ips/{floating_ip_id}")]),

    base.rule(VOLUMES % "list", R, "List volumes",
              [("GET", "/os-volumes")]),
    base.rule(VOLUMES % "create", M, "Create volume",
              [("POST", "/os-volumes")]),
    base.rule(VOLUMES % "detail", R, "List volumes detail",
              [("GET", "/os-volumes/detail")]),
    base.rule(VOLUMES % "show", R, "Show volume",
              [("GET", "/os-volumes/{volume_id}")]),
    base.rule(VOLUMES % "delete", M, "Delete volume",
              [("DELETE", "/os-volumes/{volume_id}")]),
    base.rule(VOLUMES % "snapshots:list", R, "List snapshots",
              [("GET", "/os-snapshots")]),
    base.rule(VOLUMES % "snapshots:create", M, "Create snapshots",
              [("POST", "/os-snapshots")]),
    base.rule(VOLUMES % "snapshots:detail", R, "List snapshots details",
              [("GET", "/os-snapshots/detail")]),
    base.rule(VOLUMES % "snapshots:show", R, "Show snapshot",
              [("GET", "/os-snapshots/{snapshot_id}")]),
    base.rule(VOLUMES % "snapshots:delete", M, "Delete snapshot",
              [("DELETE", "/os-snapshots/{snapshot_id}")]),
]


def list_rules():
    return rules
