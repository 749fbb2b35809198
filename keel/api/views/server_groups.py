"""os-server-groups bodies: ``policies`` and an empty ``metadata`` before
2.64, ``policy`` and ``rules`` from 2.64; owner ids from 2.13; only live
members."""


def _rules(group):
    rules = dict(group.rules or {})
    if "max_server_per_host" in rules:
        rules["max_server_per_host"] = int(rules["max_server_per_host"])
    return rules


def server_group(req, group, live):
    body = {"id": group.uuid, "name": group.name}
    if req.version_matches("2.64"):
        body["policy"] = group.policy
        body["rules"] = _rules(group)
    else:
        body["policies"] = list(group.policies or [])
        body["metadata"] = {}
    body["members"] = [m for m in (group.members or []) if m in live]
    if req.version_matches("2.13"):
        body["project_id"] = group.project_id
        body["user_id"] = group.user_id
    return body
