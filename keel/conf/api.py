"""[api] options: Nova's names and defaults, plus how requests authenticate.

Nova 34 has only ``auth_strategy = keystone``. ``keel-development`` is ours:
it replaces the removed noauth2 for the all-in-one and for tests, and it is
never on unless a configuration file asks for it.
"""
from oslo_config import cfg

GROUP = "api"

AUTH_KEYSTONE = "keystone"
AUTH_DEVELOPMENT = "keel-development"

auth_opts = [
    cfg.StrOpt("auth_strategy", default=AUTH_KEYSTONE,
               choices=[(AUTH_KEYSTONE, "keystonemiddleware auth_token "
                                        "validates every request."),
                        (AUTH_DEVELOPMENT, "No token validation: requests "
                                           "get development_roles. Never "
                                           "use in production.")],
               help="How API requests are authenticated."),
    cfg.ListOpt("development_roles", default=["admin", "member", "reader"],
                help="Roles given to every request when auth_strategy is "
                     "keel-development."),
    cfg.StrOpt("development_user_id", default="admin",
               help="User id of a request without X-Auth-Token when "
                    "auth_strategy is keel-development."),
    cfg.StrOpt("development_project_id", default="admin",
               help="Project id of a request without X-Auth-Token when "
                    "auth_strategy is keel-development."),
    cfg.BoolOpt("use_forwarded_for", default=False,
                help="Take the client address from X-Forwarded-For. Only "
                     "behind a proxy that sets it."),
]

link_opts = [
    cfg.StrOpt("compute_link_prefix",
               help="Base URL (scheme, host, path prefix) that replaces the "
                    "request's host URL in links of compute API responses."),
    cfg.StrOpt("glance_link_prefix",
               help="Base URL that replaces the host URL in links to "
                    "images."),
]

list_opts_ = [
    cfg.IntOpt("max_limit", default=1000, min=0,
               help="Maximum number of items one list request returns."),
    cfg.BoolOpt("instance_list_per_project_cells", default=False,
                help="Only query the cells where the project has "
                     "instances."),
    cfg.StrOpt("instance_list_cells_batch_strategy", default="distributed",
               choices=["distributed", "fixed"],
               help="How the per-cell batch size of server lists is "
                    "chosen."),
    cfg.IntOpt("instance_list_cells_batch_fixed_size", default=100, min=10,
               help="Per-cell batch size with the fixed strategy."),
    cfg.BoolOpt("list_records_by_skipping_down_cells", default=True,
                help="Skip cells that do not answer when listing (before "
                     "microversion 2.69) instead of failing."),
    cfg.StrOpt("response_validation", default="warn",
               choices=["error", "warn", "ignore"],
               help="What to do when a response does not match its "
                    "schema."),
    cfg.BoolOpt("enable_instance_password", default=True,
                help="Return the generated admin password on create, "
                     "rebuild and rescue."),
]

# os-tenant-networks (proxy API up to 2.35): also list a default project's
# networks.
tenant_network_opts = [
    cfg.BoolOpt("use_neutron_default_nets", default=False,
                help="Also list the networks of neutron_default_tenant_id "
                     "in os-tenant-networks."),
    cfg.StrOpt("neutron_default_tenant_id", default="default",
               help="Project whose networks os-tenant-networks adds when "
                    "use_neutron_default_nets is set."),
]

ALL = auth_opts + link_opts + list_opts_ + tenant_network_opts


def register_opts(conf):
    conf.register_opts(ALL, group=GROUP)


def list_opts():
    return {GROUP: ALL}
