"""[glance]: Nova's Glance options plus keystoneauth1 session, auth and
adapter options (service type ``image``)."""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "glance"
DEFAULT_SERVICE_TYPE = "image"

glance_group = cfg.OptGroup(GROUP, title="Glance Options",
                            help="Configuration options for the Image "
                                 "service")

glance_opts = [
    cfg.ListOpt("api_servers",
                deprecated_for_removal=True,
                help="List of Glance API endpoints (scheme://host:port), "
                     "used in turn; prefer endpoint_override or the "
                     "service catalog."),
    cfg.IntOpt("num_retries", default=3, min=0,
               help="Times to retry a Glance call that failed to connect."),
    cfg.BoolOpt("verify_glance_signatures", default=False,
                help="Verify image signatures (accepted, not acted on)."),
    cfg.BoolOpt("enable_certificate_validation", default=False,
                deprecated_for_removal=True,
                help="Validate the signing certificate (accepted, not "
                     "acted on)."),
    cfg.ListOpt("default_trusted_certificate_ids", default=[],
                help="Trusted certificate IDs (accepted, not acted on)."),
    cfg.BoolOpt("enable_rbd_download", default=False,
                help="Download RBD-backed images directly (accepted, not "
                     "acted on: the KubeVirt driver imports over HTTP)."),
    cfg.StrOpt("rbd_user", default="", help="Ceph user for RBD download."),
    cfg.IntOpt("rbd_connect_timeout", default=5,
               help="Timeout of the RBD connection, in seconds."),
    cfg.StrOpt("rbd_pool", default="", help="RBD pool of the images."),
    cfg.StrOpt("rbd_ceph_conf", default="", help="Ceph configuration."),
    cfg.BoolOpt("debug", default=False,
                help="Log every Glance request and response."),
]


def register_opts(conf):
    # Fresh group object: see keel/conf/database.py.
    conf.register_group(cfg.OptGroup(GROUP, title=glance_group.title,
                                     help=glance_group.help))
    conf.register_opts(glance_opts, group=GROUP)
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)
    ks_loading.register_adapter_conf_options(conf, GROUP)
    conf.set_default("service_type", DEFAULT_SERVICE_TYPE, group=GROUP)
    conf.set_default("valid_interfaces", ["internal", "public"], group=GROUP)


def list_opts():
    opts = (glance_opts
            + ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options("password")
            + ks_loading.get_adapter_conf_options(include_deprecated=False))
    return {glance_group: opts}
