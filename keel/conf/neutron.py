"""[neutron]: how compute and API reach Neutron (Nova's option names).

Besides keystoneauth1's session/auth/adapter options (``auth_type``,
``auth_url``, ``endpoint_override``, ``region_name``, ``valid_interfaces``…)
Nova's own knobs: the default floating pool, the OVS bridge a VIF falls
back to, the metadata proxy secret and the physnet list for NUMA affinity.
"""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "neutron"
DEFAULT_SERVICE_TYPE = "network"

group = cfg.OptGroup(GROUP, title="Neutron Options")

neutron_opts = [
    cfg.StrOpt("ovs_bridge", default="br-int",
               help="Default OVS bridge name to use if not specified by "
                    "Neutron."),
    cfg.StrOpt("default_floating_pool", default="nova",
               help="Default name (or id) of the external network floating "
                    "IPs come from when the request names no pool."),
    cfg.IntOpt("extension_sync_interval", default=600, min=0,
               help="Seconds between refreshes of the Neutron extension "
                    "list."),
    cfg.ListOpt("physnets", default=[],
                help="Physical networks with NUMA affinity; each has its "
                     "own [neutron_physnet_<name>] group."),
    cfg.IntOpt("http_retries", default=3, min=0,
               help="Number of times Neutron calls are retried on "
                    "connection failures."),
    cfg.StrOpt("url", deprecated_for_removal=True,
               help="Neutron endpoint; use endpoint_override instead."),
]

metadata_proxy_opts = [
    cfg.BoolOpt("service_metadata_proxy", default=False,
                help="Whether Neutron's metadata proxy fronts the metadata "
                     "service (and signs its requests)."),
    cfg.StrOpt("metadata_proxy_shared_secret", default="", secret=True,
               help="Shared secret validating proxied metadata requests."),
]

ALL_OPTS = neutron_opts + metadata_proxy_opts


def register_opts(conf):
    # Fresh group object: see keel/conf/database.py.
    conf.register_group(cfg.OptGroup(GROUP, title=group.title))
    conf.register_opts(ALL_OPTS, group=GROUP)
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)
    ks_loading.register_adapter_conf_options(conf, GROUP)
    conf.set_default("service_type", DEFAULT_SERVICE_TYPE, group=GROUP)
    conf.set_default("valid_interfaces", ["internal", "public"], group=GROUP)
    conf.register_group(cfg.OptGroup("neutron_tunnel"))
    conf.register_opt(_numa_nodes(), group="neutron_tunnel")


def _numa_nodes():
    return cfg.ListOpt("numa_nodes", default=[], item_type=int,
                       help="NUMA nodes the network is affine to.")


def register_dynamic_opts(conf):
    """[neutron_physnet_<name>] groups, one per [neutron]/physnets entry;
    call after the configuration files are parsed (as Nova does)."""
    for name in conf[GROUP].physnets or []:
        grp = "neutron_physnet_%s" % name
        conf.register_group(cfg.OptGroup(grp))
        conf.register_opt(_numa_nodes(), group=grp)


def list_opts():
    opts = (ALL_OPTS + ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options("password")
            + ks_loading.get_adapter_conf_options(include_deprecated=False))
    return {group: opts}
