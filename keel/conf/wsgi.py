"""[wsgi] options for the embedded servers (``keel api``/``keel metadata``).

Worker processes come from [DEFAULT]/osapi_compute_workers and
metadata_workers as in Nova; these options shape each worker.
"""
from oslo_config import cfg

GROUP = "wsgi"

ALL = [
    cfg.IntOpt("threads", default=16, min=1,
               help="Request threads per API worker process (keel's "
                    "embedded cheroot server)."),
    cfg.IntOpt("client_socket_timeout", default=900, min=0,
               help="Seconds an idle client connection is kept; 0 means "
                    "wait forever."),
    cfg.BoolOpt("keep_alive", default=True,
                help="Keep client connections open between requests."),
    cfg.IntOpt("max_header_line", default=16384, min=1,
               help="Maximum size of one request header line."),
    cfg.IntOpt("backlog", default=1024, min=1,
               help="Listen queue length of the API socket."),
    cfg.StrOpt("secure_proxy_ssl_header",
               deprecated_for_removal=True,
               deprecated_reason="Use [oslo_middleware]/"
                                 "enable_proxy_headers_parsing.",
               help="Header a TLS-terminating proxy sets with the original "
                    "scheme."),
]


def register_opts(conf):
    conf.register_opts(ALL, group=GROUP)


def list_opts():
    return {GROUP: ALL}
