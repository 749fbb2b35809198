"""Security group and rule bodies of Nova's os-security-groups proxy."""


def rule(r, groups):
    """One rule; ``groups`` maps source group ids to {name, project_id}
    (looked up once per response). A rule whose source group vanished
    meanwhile is left out (None), as Nova does."""
    body = {"id": r["id"], "parent_group_id": r["parent_group_id"],
            "ip_protocol": r.get("protocol"), "from_port": r.get("from_port"),
            "to_port": r.get("to_port"), "group": {}, "ip_range": {}}
    if r.get("group_id"):
        source = groups.get(r["group_id"])
        if source is None:
            return None
        body["group"] = {"name": source.get("name"),
                         "tenant_id": source.get("project_id")}
    else:
        body["ip_range"] = {"cidr": r.get("cidr")}
    return body


def group(g, groups):
    rules = [rule(r, groups) for r in g.get("rules") or []]
    return {"id": g["id"], "description": g.get("description"),
            "name": g.get("name"), "tenant_id": g.get("project_id"),
            "rules": [r for r in rules if r is not None]}


def source_group_ids(groups):
    return {r["group_id"] for g in groups for r in g.get("rules") or []
            if r.get("group_id")}


def sorted_groups(groups, sources):
    return sorted((group(g, sources) for g in groups),
                  key=lambda b: (b["tenant_id"] or "", b["name"] or ""))
