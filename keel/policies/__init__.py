"""Policy defaults, one module per resource (as handlers/ and schemas/).

``list_rules()`` is the ``oslo.policy.policies`` entry point (namespace
``keel``), so ``oslopolicy-sample-generator --namespace keel`` documents
every rule with Nova's names.
"""
import itertools

from keel.policies import admin_actions
from keel.policies import admin_password
from keel.policies import server_diagnostics
from keel.policies import server_password
from keel.policies import server_shares
from keel.policies import multinic
from keel.policies import attach_interfaces
from keel.policies import base
from keel.policies import deferred_delete
from keel.policies import extensions
from keel.policies import console_auth_tokens
from keel.policies import os_hosts
from keel.policies import assisted_volume_snapshots
from keel.policies import instance_usage_audit_log
from keel.policies import flavors
from keel.policies import hosts
from keel.policies import keypairs
from keel.policies import network_proxies
from keel.policies import quotas
from keel.policies import server_groups
from keel.policies import server_moves
from keel.policies import server_evacuate
from keel.policies import server_migrations
from keel.policies import server_power
from keel.policies import server_shelve
from keel.policies import servers
from keel.policies import volume_attachments


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        flavors.list_rules(),
        keypairs.list_rules(),
        quotas.list_rules(),
        hosts.list_rules(),
        server_groups.list_rules(),
        servers.list_rules(),
        deferred_delete.list_rules(),
        network_proxies.list_rules(),
        server_power.list_rules(),
        volume_attachments.list_rules(),
        attach_interfaces.list_rules(),
        server_migrations.list_rules(),
        server_moves.list_rules(),
        server_evacuate.list_rules(),
        server_shelve.list_rules(),
        extensions.list_rules(),
        console_auth_tokens.list_rules(),
        os_hosts.list_rules(),
        assisted_volume_snapshots.list_rules(),
        instance_usage_audit_log.list_rules(),
        admin_actions.list_rules(),
        admin_password.list_rules(),
        server_diagnostics.list_rules(),
        server_password.list_rules(),
        multinic.list_rules(),
        server_shares.list_rules(),
    ))
