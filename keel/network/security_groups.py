"""Security groups behind Nova's os-security-groups proxy and the server
add/removeSecurityGroup actions (Nova's nova.network.security_group_api).

With Neutron every call goes to Neutron as the user. Without a network
service (LocalSecurityGroupAPI) each project has exactly one group,
``default``, with no rules; it cannot be changed or deleted and no other
group can be made, and servers have no ports to apply groups to.
"""
import uuid

from keel.clients import neutron as client_mod
from keel import exception
from keel.network import api as network_api
from keel.network import sg_rules

# Ids per list call (the URL carries them; Nova's MAX_SEARCH_IDS).
_MAX_SEARCH_IDS = 150
# A fixed namespace: the local default group of a project keeps its id.
_LOCAL_NS = uuid.UUID("5c0b3a66-1f2e-4a4b-9b0e-6b65656c7367")


def get_api(conf=None):
    if network_api.is_neutron(conf):
        return NeutronSecurityGroupAPI(conf)
    return LocalSecurityGroupAPI()


def _not_found(message):
    return exception.SecurityGroupNotFound(message=message)


class NeutronSecurityGroupAPI(object):

    def __init__(self, conf=None):
        self.conf = conf

    def _client(self, context):
        return client_mod.get_client(context, conf=self.conf)

    def list(self, context, project=None, all_tenants=False):
        filters = {} if (all_tenants and context.is_admin) else {
            "tenant_id": project or context.project_id}
        groups = self._client(context).list_security_groups(**filters)
        return [sg_rules.group_from_neutron(g) for g in groups]

    def get(self, context, id):
        try:
            group = self._client(context).show_security_group(id)
        except client_mod.NeutronClientException as exc:
            if exc.status_code == 404:
                raise _not_found(exc.format_message())
            raise
        return sg_rules.group_from_neutron(group)

    def groups_by_ids(self, context, ids):
        if not ids:
            return {}
        found = self._client(context).list_security_groups(
            id=sorted(ids), fields=["id", "name", "tenant_id"])
        return {g["id"]: {"name": g.get("name"),
                          "project_id": g.get("tenant_id")} for g in found}

    def _write(self, call, *args):
        try:
            return call(*args)
        except client_mod.NeutronClientException as exc:
            if exc.status_code == 404:
                raise _not_found(exc.format_message())
            if exc.status_code == 409 and exc.type == "OverQuota":
                raise exception.SecurityGroupLimitExceeded(
                    message=exc.format_message())
            if exc.status_code in (400, 409):
                raise exception.Invalid(message=exc.format_message())
            raise

    def create(self, context, name, description):
        client = self._client(context)
        group = self._write(client.create_security_group,
                            {"name": name, "description": description,
                             "tenant_id": context.project_id})
        return sg_rules.group_from_neutron(group)

    def update(self, context, group, name, description):
        client = self._client(context)
        updated = self._write(client.update_security_group, group["id"],
                              {"name": name, "description": description})
        return sg_rules.group_from_neutron(updated)

    def destroy(self, context, group):
        self._write(self._client(context).delete_security_group,
                    group["id"])

    def create_rule(self, context, group, rule):
        client = self._client(context)
        body = sg_rules.to_neutron(dict(rule, parent_group_id=group["id"]))
        try:
            created = client.create_security_group_rule(body)
        except client_mod.NeutronClientException as exc:
            if exc.status_code == 404:
                raise _not_found(exc.format_message())
            if exc.status_code == 409:
                # Nova reports Neutron's conflicts (duplicate rule, quota)
                # as the over-quota 403, with Neutron's message.
                raise exception.SecurityGroupLimitExceeded(
                    message=exc.format_message())
            if exc.status_code == 400:
                raise exception.Invalid(message=exc.format_message())
            raise
        return sg_rules.from_neutron(created)

    def get_rule(self, context, id):
        try:
            rule = self._client(context).show_security_group_rule(id)
        except client_mod.NeutronClientException as exc:
            if exc.status_code == 404:
                raise _not_found(exc.format_message())
            raise
        return sg_rules.from_neutron(rule)

    def remove_rule(self, context, group, rule_id):
        self._write(self._client(context).delete_security_group_rule,
                    rule_id)

    # -- servers -----------------------------------------------------------
    def get_instance_security_groups(self, context, instance):
        client = self._client(context)
        ports = client.list_ports(device_id=instance.uuid,
                                  fields=["id", "security_groups"])
        ids = sorted({sg for p in ports for sg in
                      p.get("security_groups") or []})
        if not ids:
            return []
        return [sg_rules.group_from_neutron(g)
                for g in client.list_security_groups(id=ids)]

    def get_instances_security_groups_bindings(self, context, uuids):
        """``{instance uuid: [{"name": group name}]}`` for the servers that
        have ports: what Nova shows as a server's security_groups with
        Neutron. Two list calls per 150 servers, whatever their ports."""
        client = self._client(context)
        uuids = list(uuids)
        ports = []
        for i in range(0, len(uuids), _MAX_SEARCH_IDS):
            ports += client.list_ports(
                device_id=uuids[i:i + _MAX_SEARCH_IDS],
                fields=["device_id", "security_groups"])
        ids = sorted({sg for p in ports for sg in
                      p.get("security_groups") or []})
        names = {}
        for i in range(0, len(ids), _MAX_SEARCH_IDS):
            for g in client.list_security_groups(
                    id=ids[i:i + _MAX_SEARCH_IDS], fields=["id", "name"]):
                names[g["id"]] = g.get("name") or g["id"]
        out = {}
        for port in ports:
            groups = out.setdefault(port["device_id"], [])
            for sg in port.get("security_groups") or []:
                entry = {"name": names.get(sg, sg)}
                if entry not in groups:
                    groups.append(entry)
        return out

    def _find(self, client, context, name):
        groups = client.list_security_groups(
            tenant_id=context.project_id, fields=["id", "name"])
        by_name = [g["id"] for g in groups if g["name"] == name]
        if len(by_name) > 1:
            raise exception.NoUniqueMatch(
                message="Multiple security_group matches found for name "
                        "'%s', use an ID to be more specific." % name)
        if by_name:
            return by_name[0]
        if any(g["id"] == name for g in groups):
            return name
        raise _not_found("Security group %s is not found for project %s" %
                         (name, context.project_id))

    def _ports(self, client, instance):
        ports = client.list_ports(device_id=instance.uuid)
        if not ports:
            raise _not_found("instance_id %s could not be found as device "
                             "id on any ports" % instance.uuid)
        return ports

    def add_to_instance(self, context, instance, name):
        client = self._client(context)
        sg_id = self._find(client, context, name)
        for port in self._ports(client, instance):
            if not (port.get("port_security_enabled", True) and
                    port.get("fixed_ips")):
                raise exception.SecurityGroupCannotBeApplied()
            groups = list(port.get("security_groups") or [])
            if sg_id not in groups:
                groups.append(sg_id)
            try:
                client.update_port(port["id"], {"security_groups": groups})
            except client_mod.NeutronClientException as exc:
                if exc.status_code == 400:
                    raise exception.SecurityGroupCannotBeApplied(
                        message=exc.format_message())
                raise

    def remove_from_instance(self, context, instance, name):
        client = self._client(context)
        sg_id = self._find(client, context, name)
        found = False
        for port in self._ports(client, instance):
            groups = list(port.get("security_groups") or [])
            if sg_id not in groups:
                continue
            groups.remove(sg_id)
            client.update_port(port["id"], {"security_groups": groups})
            found = True
        if not found:
            raise exception.SecurityGroupNotExistsForInstance(
                message="Security group %s not associated with the instance "
                        "%s" % (name, instance.uuid))


class LocalSecurityGroupAPI(object):
    """Only the project's 'default' group exists (see module doc)."""

    NO_SERVICE = ("Security groups other than 'default' need the network "
                  "service (Neutron), which is not configured.")

    @staticmethod
    def _default(project_id):
        return {"id": str(uuid.uuid5(_LOCAL_NS, str(project_id))),
                "name": "default", "description": "Default security group",
                "project_id": project_id, "rules": []}

    def list(self, context, project=None, all_tenants=False):
        return [self._default(project or context.project_id)]

    def get(self, context, id):
        group = self._default(context.project_id)
        if id != group["id"]:
            raise exception.SecurityGroupNotFound(security_group_id=id)
        return group

    def groups_by_ids(self, context, ids):
        group = self._default(context.project_id)
        return {group["id"]: {"name": "default",
                              "project_id": context.project_id}} \
            if group["id"] in ids else {}

    def create(self, context, name, description):
        raise exception.Invalid(message=self.NO_SERVICE)

    def update(self, context, group, name, description):
        raise exception.Invalid(
            message="Updating default security group not allowed.")

    def destroy(self, context, group):
        raise exception.Invalid(
            message="Removing default security group not allowed.")

    def create_rule(self, context, group, rule):
        raise exception.Invalid(message=self.NO_SERVICE)

    def get_rule(self, context, id):
        raise _not_found("Security group rule %s not found." % id)

    def remove_rule(self, context, group, rule_id):
        raise _not_found("Security group rule %s not found." % rule_id)

    def get_instance_security_groups(self, context, instance):
        return []  # no ports, so no groups applied (as Nova with Neutron)

    def get_instances_security_groups_bindings(self, context, uuids):
        return {}  # no ports: servers show the groups they were given

    def _check(self, context, instance, name):
        if name not in ("default", self._default(context.project_id)["id"]):
            raise _not_found("Security group %s is not found for project %s"
                             % (name, context.project_id))
        raise _not_found("instance_id %s could not be found as device id "
                         "on any ports" % instance.uuid)

    add_to_instance = _check
    remove_from_instance = _check
