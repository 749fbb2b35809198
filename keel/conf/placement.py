"""[placement]: keystoneauth1 session, auth and adapter options (Nova's)."""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "placement"
DEFAULT_SERVICE_TYPE = "placement"

group = cfg.OptGroup(GROUP, title="Placement Service Options")


def register_opts(conf):
    # Fresh group object: see keel/conf/database.py.
    conf.register_group(cfg.OptGroup(GROUP, title=group.title))
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)
    ks_loading.register_adapter_conf_options(conf, GROUP)
    conf.set_default("service_type", DEFAULT_SERVICE_TYPE, group=GROUP)
    conf.set_default("valid_interfaces", ["internal", "public"], group=GROUP)


def list_opts():
    opts = (ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options("password")
            + ks_loading.get_adapter_conf_options(include_deprecated=False))
    return {group: opts}
