"""[service_user]: the service token sent beside the user's token (Nova's
options), so that a call made on a user's behalf survives the user token
expiring mid-operation."""
from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "service_user"

service_user = cfg.OptGroup(
    GROUP, title="Service token authentication type options",
    help="Credentials of the service user sent as X-Service-Token.")

service_user_opts = [
    cfg.BoolOpt("send_service_user_token", default=False,
                help="Send a service token beside the user's token on "
                     "calls to other services (Glance, Neutron, Cinder)."),
]


def register_opts(conf):
    # Fresh group object: see keel/conf/database.py.
    conf.register_group(cfg.OptGroup(GROUP, title=service_user.title,
                                     help=service_user.help))
    conf.register_opts(service_user_opts, group=GROUP)
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)


def list_opts():
    return {service_user: (service_user_opts
                           + ks_loading.get_session_conf_options()
                           + ks_loading.get_auth_common_conf_options()
                           + ks_loading.get_auth_plugin_conf_options(
                               "password"))}
