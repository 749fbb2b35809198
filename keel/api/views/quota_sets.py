"""Quota set, quota class set and limits bodies: which resources a
microversion shows."""
from keel.compute_api import quota

NETWORK = ("fixed_ips", "floating_ips", "security_groups",
           "security_group_rules")
INJECTED = ("injected_files", "injected_file_content_bytes",
            "injected_file_path_bytes")
GROUPS = ("server_groups", "server_group_members")


def hidden_quotas(req):
    if req.version_matches("2.57"):
        return NETWORK + INJECTED
    if req.version_matches("2.36"):
        return NETWORK
    return ()


def hidden_class_quotas(req):
    if req.version_matches("2.57"):
        return NETWORK + INJECTED
    if req.version_matches("2.50"):
        return NETWORK
    return GROUPS  # before 2.50 quota classes did not show server groups


def quota_set(values, hidden, project_id=None, root="quota_set"):
    body = {"id": str(project_id)} if project_id is not None else {}
    body.update({name: values[name] for name in quota.RESOURCES
                 if name in values and name not in hidden})
    return {root: body}


# limits: quota resource -> absolute limit names, and used counters
_MAX = [("ram", "maxTotalRAMSize"), ("instances", "maxTotalInstances"),
        ("cores", "maxTotalCores"), ("key_pairs", "maxTotalKeypairs"),
        ("floating_ips", "maxTotalFloatingIps"),
        ("metadata_items", "maxServerMeta"),
        ("metadata_items", "maxImageMeta"),
        ("injected_files", "maxPersonality"),
        ("injected_file_content_bytes", "maxPersonalitySize"),
        ("security_groups", "maxSecurityGroups"),
        ("security_group_rules", "maxSecurityGroupRules"),
        ("server_groups", "maxServerGroups"),
        ("server_group_members", "maxServerGroupMembers")]
_USED = [("ram", "totalRAMUsed"), ("cores", "totalCoresUsed"),
         ("instances", "totalInstancesUsed"),
         ("floating_ips", "totalFloatingIpsUsed"),
         ("security_groups", "totalSecurityGroupsUsed"),
         ("server_groups", "totalServerGroupsUsed")]


def limits(req, quotas):
    hidden = set()
    if req.version_matches("2.36"):
        hidden |= {"floating_ips", "security_groups", "security_group_rules"}
    if req.version_matches("2.57"):
        hidden |= {"injected_files", "injected_file_content_bytes"}
    absolute = {}
    for resource, name in _MAX:
        if resource in hidden or (name == "maxImageMeta" and
                                  req.version_matches("2.39")):
            continue
        absolute[name] = quotas[resource]["limit"]
    for resource, name in _USED:
        if resource not in hidden:
            absolute[name] = quotas[resource]["in_use"]
    return {"limits": {"rate": [], "absolute": absolute}}
