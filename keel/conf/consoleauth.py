"""[consoleauth]: console authorization tokens (Nova's names)."""
from oslo_config import cfg

GROUP = "consoleauth"

opts = [
    cfg.IntOpt("token_ttl", default=600, min=0,
               deprecated_name="console_token_ttl",
               deprecated_group="DEFAULT",
               help="Seconds a console token stays valid."),
    cfg.BoolOpt("enforce_session_timeout", default=False,
                help="Close console sessions when their token expires."),
]


def register_opts(conf):
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {GROUP: opts}
