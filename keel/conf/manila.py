"""[manila]: how the API and computes reach Manila (Nova's option names)."""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "manila"

group = cfg.OptGroup(GROUP, title="Manila Options")

manila_opts = [
    cfg.StrOpt("endpoint_override",
               help="Manila endpoint to use instead of the catalog's "
                    "(e.g. http://host:8786/v2)."),
    cfg.StrOpt("service_type", default="shared-file-system",
               help="Service type of Manila in the catalog."),
    cfg.StrOpt("valid_interfaces", default="internal,public",
               help="Catalog interfaces to try, in order."),
    cfg.StrOpt("region_name", help="Region of the Manila endpoint."),
    cfg.IntOpt("share_apply_policy_timeout", default=10, min=0,
               help="Seconds to wait for Manila to apply an access rule."),
]


def register_opts(conf):
    conf.register_group(cfg.OptGroup(GROUP, title=group.title))
    conf.register_opts(manila_opts, group=GROUP)
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)


def list_opts():
    opts = (manila_opts + ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options("password"))
    return {group: opts}
