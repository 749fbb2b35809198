"""[image_catalogue]: keel's local image catalogue (no Glance).

The all-in-one sets ``path`` to ``<state-dir>/images``; ``keel manage
image`` reads the same option, so both see one catalogue.
"""
from oslo_config import cfg

GROUP = "image_catalogue"

group = cfg.OptGroup(GROUP, title="Local image catalogue",
                     help="A directory of image records used instead of "
                          "Glance when [glance] names no endpoint.")

opts = [
    cfg.StrOpt("path", default=None,
               help="Directory of the local image catalogue (one JSON file "
                    "per image, optional data file beside it). Unset: no "
                    "local catalogue, images come from Glance."),
    cfg.BoolOpt("serve", default=True,
                help="The all-in-one serves the catalogue as a Glance v2 "
                     "endpoint (for the openstack CLI, openstacksdk's "
                     "image proxy and KubeVirt's CDI imports)."),
    cfg.PortOpt("port", default=9292,
                help="Port of that endpoint (0: any free port). A port "
                     "already in use leaves the endpoint off, with a "
                     "warning."),
]


def register_opts(conf):
    conf.register_group(cfg.OptGroup(GROUP, title=group.title,
                                     help=group.help))
    conf.register_opts(opts, group=GROUP)


def list_opts():
    return {group: opts}
