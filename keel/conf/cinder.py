"""[cinder]: how compute and API reach Cinder (Nova's option names)."""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "cinder"

group = cfg.OptGroup(GROUP, title="Cinder Options")

cinder_opts = [
    cfg.StrOpt("catalog_info", default="volumev3::publicURL",
               regex=r"^[^:]*:[^:]*:[^:]*$",
               help="<service_type>:<service_name>:<endpoint_type> used to "
                    "find Cinder in the service catalog."),
    cfg.StrOpt("endpoint_template",
               help="Cinder endpoint with %(project_id)s, instead of the "
                    "catalog (e.g. http://host:8776/v3/%(project_id)s)."),
    cfg.StrOpt("os_region_name", help="Region name of this node."),
    cfg.IntOpt("http_retries", default=3, min=0,
               help="Number of times Cinder calls are retried on connection "
                    "failures."),
    cfg.BoolOpt("cross_az_attach", default=True,
                help="Allow attaching a volume from another availability "
                     "zone than the instance's."),
    cfg.BoolOpt("debug", default=False,
                help="Log Cinder client requests and responses."),
]


def register_opts(conf):
    conf.register_group(cfg.OptGroup(GROUP, title=group.title))
    conf.register_opts(cinder_opts, group=GROUP)
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)


def list_opts():
    opts = (cinder_opts + ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options("password"))
    return {group: opts}
